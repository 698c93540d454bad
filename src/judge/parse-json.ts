/** The JSON a model answered, or why none could be read. */
export type ParsedAnswer = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * Read a JSON object out of a model's answer: the whole text, a fenced code block, or a
 * balanced `{…}` in prose. Reasoning a model writes before its answer (`<think>…</think>`) is
 * left out; an answer holding several different JSON objects (a draft, an example, then the
 * verdict) is an error, as is truncated or absent JSON: the verdict is never guessed.
 */
export function parseJsonAnswer(text: string): ParsedAnswer {
  const trimmed = withoutReasoning(text).trim();
  if (!trimmed) return { ok: false, error: "the answer was empty" };
  const direct = tryParse(trimmed);
  if (direct.ok) return direct;
  const fenced: string[] = [];
  for (const match of trimmed.matchAll(/```(?:json)?\s*([\s\S]*?)```/g)) {
    const body = (match[1] ?? "").trim();
    if (tryParse(body).ok) fenced.push(body);
  }
  if (fenced.length > 0) return onlyOne(fenced, "fenced JSON blocks");
  const objects: string[] = [];
  let start = trimmed.indexOf("{");
  while (start !== -1) {
    const end = balancedEnd(trimmed, start);
    if (end === -1) break;
    const candidate = trimmed.slice(start, end + 1);
    // A whole object is taken, and the search goes on after it (not inside it).
    if (tryParse(candidate).ok) {
      objects.push(candidate);
      start = trimmed.indexOf("{", end + 1);
    } else start = trimmed.indexOf("{", start + 1);
  }
  if (objects.length > 0) return onlyOne(objects, "JSON objects");
  return {
    ok: false,
    error: `no complete JSON object in the answer (${trimmed.length} chars, starting ${JSON.stringify(trimmed.slice(0, 80))})`,
  };
}

/** The answer without the reasoning some models write before it, in think or reasoning tags. */
function withoutReasoning(text: string): string {
  return text.replace(/<(think|thinking|reasoning)>[\s\S]*?<\/\1>/gi, "");
}

/** The one JSON value the candidates hold (the same one, however often); several is an error. */
function onlyOne(candidates: readonly string[], what: string): ParsedAnswer {
  const values = candidates.map((c) => JSON.parse(c) as unknown);
  const first = JSON.stringify(values[0]);
  if (values.every((v) => JSON.stringify(v) === first)) return { ok: true, value: values[0] };
  return {
    ok: false,
    error: `the answer holds ${candidates.length} different ${what}: which one is the verdict is not clear`,
  };
}

function tryParse(text: string): ParsedAnswer {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

// Index of the brace closing the one at `start`, skipping braces inside strings; -1 when unbalanced.
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === "\\") i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === "{") depth++;
    else if (char === "}") {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}
