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

/** Escapes that always name a line terminator, or may (a property), by their letter. */
const NAMING_ESCAPES = new Set(["r", "n", "p", "P"]);

/** The code point a one-letter escape stands for as a class range's bound. */
const BOUND_ESCAPES: Readonly<Record<string, number>> = { t: 9, v: 11, f: 12, b: 8, "0": 0 };

/**
 * Whether a JavaScript regex source may tell one line terminator from another: it holds one
 * literally, an escape that writes one (`\r`, `\n`, `\x0d`, `\u2028`, `\u{2029}`, `\cM`,
 * `\cJ`) or a property escape (`\p{..}`, `\P{..}`, which may take one in), or a class range whose span covers one (`[\f-!]`). Only such a pattern may
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
      const written = writtenCode(source, i);
      if (written) {
        if (isTerminator(written.code)) return true;
        value = written.code;
        i = written.end - 1;
      } else {
        i++;
        if (isTerminator(next.codePointAt(0))) return true;
        value = BOUND_ESCAPES[next] ?? (/[A-Za-z]/.test(next) ? undefined : next.codePointAt(0));
      }
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

/**
 * The character an escape at `at` writes by its code (`\xHH`, `\uHHHH`, `\u{H…}`, `\cX`) and
 * where the escape ends; undefined for any other escape (or one of these not well formed, which
 * JavaScript reads as the letter).
 */
function writtenCode(source: string, at: number): { code: number; end: number } | undefined {
  const rest = source.slice(at + 1, at + 12);
  const hex =
    /^x([0-9a-fA-F]{2})/.exec(rest) ??
    /^u([0-9a-fA-F]{4})/.exec(rest) ??
    /^u\{([0-9a-fA-F]{1,6})\}/.exec(rest);
  if (hex) return { code: Number.parseInt(hex[1]!, 16), end: at + 1 + hex[0].length };
  const control = /^c([A-Za-z])/.exec(rest);
  if (control) return { code: control[1]!.charCodeAt(0) % 32, end: at + 3 };
  return undefined;
}

function isTerminator(code: number | undefined): boolean {
  return code === 0x0a || code === 0x0d || code === 0x2028 || code === 0x2029;
}

function spansTerminator(from: number, to: number): boolean {
  return [0x0a, 0x0d, 0x2028, 0x2029].some((code) => from <= code && code <= to);
}
