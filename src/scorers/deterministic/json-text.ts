// A model's answer read as JSON text (`parseJson` of eval.json-schema-valid). JSON.parse says
// where the text breaks only in some Node versions and for some errors ("Unexpected token 'S',
// "Sure! Here"... is not valid JSON"); a failed judgment needs the place, so once JSON.parse has
// refused the text, one pass over it finds the first character that cannot continue it. The
// pass keeps its nesting in an array, so text nested 100,000 deep cannot overflow the stack.

/** The text as a JSON value, or why it is not JSON text: where it breaks and what was there. */
export type JsonText = { ok: true; value: unknown } | { ok: false; reason: string };

/** The first place the text stops being JSON, and what JSON wanted there. */
interface Break {
  at: number;
  wanted: string;
}

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);
const ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t"]);
const DIGIT = /[0-9]/;
const HEX4 = /^[0-9a-fA-F]{4}$/;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

/** The end of the string starting at `at` (after its closing quote), or where it breaks. */
function stringEnd(text: string, at: number): number | Break {
  for (let i = at + 1; i < text.length; i++) {
    const char = text[i]!;
    if (char === '"') return i + 1;
    if (char < " ") return { at: i, wanted: "a control character escaped (\\n, \\t, \\u…)" };
    if (char !== "\\") continue;
    const escaped = text[i + 1];
    if (escaped === "u" && HEX4.test(text.slice(i + 2, i + 6))) i += 5;
    else if (escaped !== undefined && ESCAPES.has(escaped)) i += 1;
    else
      return { at: i, wanted: 'a valid escape (\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t, \\uXXXX)' };
  }
  return { at: text.length, wanted: 'the closing " of a string' };
}

/** The end of the scalar (string, number, true, false, null) starting at `at`, or where it breaks. */
function scalarEnd(text: string, at: number): number | Break {
  const char = text[at];
  if (char === '"') return stringEnd(text, at);
  for (const literal of ["true", "false", "null"]) {
    if (char !== literal[0]) continue;
    let i = 0;
    while (i < literal.length && text[at + i] === literal[i]) i++;
    return i === literal.length ? at + i : { at: at + i, wanted: `"${literal}"` };
  }
  if (char === "-" || (char !== undefined && DIGIT.test(char))) {
    NUMBER.lastIndex = at;
    if (!NUMBER.test(text)) return { at: at + 1, wanted: "a digit after the minus sign" };
    const end = NUMBER.lastIndex;
    const next = text[end];
    if (next === undefined || !/[0-9.eE+-]/.test(next)) return end;
    return { at: end, wanted: "a number as JSON writes it" };
  }
  return { at, wanted: "a JSON value" };
}

/** Where JSON text breaks; undefined when it does not (JSON.parse would take it). */
function findBreak(text: string): Break | undefined {
  const closers: string[] = [];
  let i = 0;
  const skip = () => {
    while (i < text.length && WHITESPACE.has(text[i]!)) i++;
  };
  /** After `{` or `,` in an object: its next property name and colon. */
  const key = (): Break | undefined => {
    skip();
    const end = keyEnd(text, i);
    if (typeof end !== "number") return end;
    i = end;
    return undefined;
  };
  for (;;) {
    // A value at i: a container opens (and may close at once), or a scalar is read whole.
    skip();
    const opened = text[i] === "[" ? "]" : text[i] === "{" ? "}" : undefined;
    if (opened !== undefined) {
      i++;
      skip();
      if (text[i] !== opened) {
        closers.push(opened);
        const broken = opened === "}" ? key() : undefined;
        if (broken) return broken;
        continue;
      }
      i++;
    } else {
      const end = scalarEnd(text, i);
      if (typeof end !== "number") return end;
      i = end;
    }
    // After a value: the ends of its containers, then a comma (and a name in an object) or the end.
    skip();
    while (closers.length > 0 && text[i] === closers.at(-1)) {
      closers.pop();
      i++;
      skip();
    }
    const close = closers.at(-1);
    if (close === undefined) {
      return i < text.length
        ? { at: i, wanted: "the end of the text after the JSON value" }
        : undefined;
    }
    if (text[i] !== ",") return { at: i, wanted: `"," or "${close}"` };
    i++;
    const broken = close === "}" ? key() : undefined;
    if (broken) return broken;
  }
}

/** After a property name and its colon, or where that breaks. */
function keyEnd(text: string, at: number): number | Break {
  if (text[at] !== '"') return { at, wanted: "a property name in double quotes" };
  const end = stringEnd(text, at);
  if (typeof end !== "number") return end;
  let i = end;
  while (i < text.length && WHITESPACE.has(text[i]!)) i++;
  return text[i] === ":" ? i + 1 : { at: i, wanted: '":" after the property name' };
}

/** A character as a reason shows it: quoted, or by its code point when it cannot be seen. */
function shown(codePoint: number): string {
  const char = String.fromCodePoint(codePoint);
  // JSON.stringify escapes the controls below U+0020 itself.
  if (!/[\p{Cf}\p{Z}\u007f-\u009f]/u.test(char) || char === " ") return JSON.stringify(char);
  const hex = codePoint.toString(16).toUpperCase().padStart(4, "0");
  return `U+${hex}${codePoint === 0xfeff ? ", a byte-order mark" : ", which cannot be seen"}`;
}

/** Where an offset is (line and column from 1), what is there, and the text around it. */
function place(text: string, at: number): { where: string; around: string } {
  const before = text.slice(0, at);
  const line = before.split("\n").length;
  const column = at - (before.lastIndexOf("\n") + 1) + 1;
  const found = at >= text.length ? "the text ends" : `found ${shown(text.codePointAt(at)!)}`;
  const start = Math.max(0, at - 20);
  const cut = at + 20 < text.length;
  const around = `${start > 0 ? "…" : ""}${text.slice(start, at + 20)}${cut ? "…" : ""}`;
  return { where: `line ${line}, column ${column} (${found})`, around: JSON.stringify(around) };
}

/**
 * Parse JSON text, or say where it breaks, what JSON wanted there and the text around it.
 * @example
 * parseJsonText("Sure! {}");
 * // → { ok: false, reason: 'actual is not JSON: at line 1, column 1 (found "S"), wanted a JSON value: "Sure! {}"' }
 */
export function parseJsonText(text: string): JsonText {
  // One byte-order mark before the text is no part of it (RFC 8259 lets a parser ignore it).
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    if (text.trim() === "") return { ok: false, reason: "actual is not JSON: it is empty" };
    const broken = findBreak(text);
    // The scan and JSON.parse read JSON alike; should they ever differ, JSON.parse's words stand.
    if (broken === undefined) return { ok: false, reason: `actual is not JSON: ${String(error)}` };
    const { where, around } = place(text, broken.at);
    return {
      ok: false,
      reason: `actual is not JSON: at ${where}, wanted ${broken.wanted}: ${around}`,
    };
  }
}
