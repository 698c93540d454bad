// How the viewer writes a value as text, so that two different values never read the same.

/** A value's type as the viewer names it: JSON's types, and `undefined`. */
export const kindOf = (v: unknown): string =>
  v === null ? "null" : Array.isArray(v) ? "array" : typeof v;

/** Whether a string, shown bare, would read as a JSON number, boolean or null ("42", "true"). */
function readsAsLiteral(s: string): boolean {
  try {
    const parsed: unknown = JSON.parse(s);
    return parsed === null || typeof parsed === "number" || typeof parsed === "boolean";
  } catch {
    return false;
  }
}

/**
 * A value as text: JSON, but a string bare (prose stays readable) unless it would read as another
 * value, a JSON literal or beside one of `others` that is not a string: then it is quoted as JSON.
 */
export function shownText(v: unknown, others: readonly unknown[] = []): string {
  if (typeof v !== "string") return JSON.stringify(v, null, 2) ?? String(v);
  const quoted = readsAsLiteral(v) || others.some((o) => o !== undefined && typeof o !== "string");
  return quoted ? JSON.stringify(v) : v;
}

/** A value's text without quotes on a string: what two values of different types may share. */
const bareText = (v: unknown): string =>
  typeof v === "string" ? v : (JSON.stringify(v, null, 2) ?? String(v));

const SHORT = 60;
const short = (s: string) => (s.length > SHORT ? `${s.slice(0, SHORT)}\u2026` : s);

/**
 * What to say of two values of different types ("same text, different types: string "42" vs number
 * 42"), or null when their types are the same.
 */
export function typeNote(a: unknown, b: unknown): string | null {
  const [ka, kb] = [kindOf(a), kindOf(b)];
  if (ka === kb) return null;
  const lead = bareText(a) === bareText(b) ? "same text, different types" : "different types";
  const named = (k: string, v: unknown, other: unknown) =>
    k === "null" ? "null" : `${k} ${short(shownText(v, [other]))}`;
  return `${lead}: ${named(ka, a, b)} vs ${named(kb, b, a)}`;
}
