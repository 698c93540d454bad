/**
 * JavaScript's line terminators other than `\n`, which RE2 does not take as line ends for `^` and
 * `$` under the `m` flag.
 */
const OTHER_TERMINATORS = /[\r\u2028\u2029]/g;

/**
 * The text with each `\r`, U+2028 and U+2029 replaced by `\n`, one for one, so its length and
 * every other character stay. For a pattern that names no line terminator ({@link
 * namesLineTerminator}), `.`, `^`, `$`, `\s`, `\S`, `\w`, `\W`, `\b` and every class treat the four
 * alike, so RE2 then matches as JavaScript does, `^` and `$` under `m` included.
 */
export function toLineFeeds(text: string): string {
  return text.replace(OTHER_TERMINATORS, "\n");
}

/** Escapes that can stand for a line terminator, by their letter after the backslash. */
const NAMING_ESCAPES = new Set(["r", "n", "x", "u", "c", "p", "P"]);

/** The code point a one-letter escape stands for as a class range's bound. */
const BOUND_ESCAPES: Readonly<Record<string, number>> = { t: 9, v: 11, f: 12, b: 8, "0": 0 };

/**
 * Whether a JavaScript regex source may tell one line terminator from another: it holds one
 * literally, an escape that can write one (`\r`, `\n`, `\x..`, `\u....`, `\u{..}`, `\cX`,
 * `\p{..}`, `\P{..}`), or a class range whose span covers one (`[\f-!]`). Only such a pattern may
 * see the difference {@link toLineFeeds} erases.
 * @example
 * namesLineTerminator("^\\d+$") // → false
 * namesLineTerminator("a\\r\\nb") // → true
 */
export function namesLineTerminator(source: string): boolean {
  let inClass = false;
  // The last single character written in a class, as a range's low bound.
  let bound: number | undefined;
  let rangeFrom: number | undefined;
  for (let i = 0; i < source.length; i++) {
    const char = source[i]!;
    let value: number | undefined;
    if (char === "\\") {
      const next = source[i + 1] ?? "";
      if (NAMING_ESCAPES.has(next)) return true;
      i++;
      if (isTerminator(next.codePointAt(0))) return true;
      value = BOUND_ESCAPES[next] ?? (/[A-Za-z]/.test(next) ? undefined : next.codePointAt(0));
    } else {
      const code = source.codePointAt(i)!;
      if (isTerminator(code)) return true;
      if (code > 0xffff) i++;
      if (!inClass) {
        if (char === "[") {
          inClass = true;
          bound = undefined;
          rangeFrom = undefined;
          if (source[i + 1] === "^") i++;
        }
        continue;
      }
      if (char === "]") {
        inClass = false;
        continue;
      }
      if (char === "-" && bound !== undefined && rangeFrom === undefined) {
        rangeFrom = bound;
        continue;
      }
      value = code;
    }
    if (!inClass) continue;
    if (rangeFrom !== undefined && value !== undefined && spansTerminator(rangeFrom, value))
      return true;
    bound = rangeFrom === undefined ? value : undefined;
    rangeFrom = undefined;
  }
  return false;
}

function isTerminator(code: number | undefined): boolean {
  return code === 0x0a || code === 0x0d || code === 0x2028 || code === 0x2029;
}

function spansTerminator(from: number, to: number): boolean {
  return [0x0a, 0x0d, 0x2028, 0x2029].some((code) => from <= code && code <= to);
}
