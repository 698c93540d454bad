/** The JSON a model answered, or why none could be read. */
export type ParsedAnswer = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * Read a JSON object out of a model's answer: the whole text, a fenced code block,
 * or the first balanced `{…}` in prose. Truncated or absent JSON is an error, never a guess.
 */
export function parseJsonAnswer(text: string): ParsedAnswer {
  const trimmed = text.trim();
  if (!trimmed) return { ok: false, error: "the answer was empty" };
  const direct = tryParse(trimmed);
  if (direct.ok) return direct;
  for (const match of trimmed.matchAll(/```(?:json)?\s*([\s\S]*?)```/g)) {
    const fenced = tryParse((match[1] ?? "").trim());
    if (fenced.ok) return fenced;
  }
  let start = trimmed.indexOf("{");
  while (start !== -1) {
    const end = balancedEnd(trimmed, start);
    if (end === -1) break;
    const candidate = tryParse(trimmed.slice(start, end + 1));
    if (candidate.ok) return candidate;
    start = trimmed.indexOf("{", start + 1);
  }
  return {
    ok: false,
    error: `no complete JSON object in the answer (${trimmed.length} chars, starting ${JSON.stringify(trimmed.slice(0, 80))})`,
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
