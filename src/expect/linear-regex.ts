import { createRequire } from "node:module";
import type { RE2JS as RE2JSClass } from "re2js";
import { errorMessage } from "../errors.js";
import { preview, previewRegex } from "../scorers/deterministic/preview.js";
import { namesLineTerminator, toLineFeeds } from "./line-terminators.js";

/**
 * A user's regular expression run by RE2 (re2js, pure JavaScript): time linear in the input
 * whatever the pattern, so no pattern can hang a run. The source is read as JavaScript
 * syntax and translated; where RE2 cannot express it, compiling says so.
 */
export interface LinearRegex {
  /** The JavaScript source, as written. */
  readonly source: string;
  readonly flags: string;
  /** Whether the pattern matches somewhere in `text` (from the start with `y`). */
  test(text: string): boolean;
  /** `/source/flags`, as the user wrote it. */
  toString(): string;
}

/** A compiled pattern, or why it cannot run. */
export type LinearRegexResult =
  | { readonly ok: true; readonly regex: LinearRegex }
  | {
      readonly ok: false;
      /** `invalid`: not a JavaScript regex; `unsupported`: valid, but RE2 cannot run it. */
      readonly problem: "invalid" | "unsupported";
      readonly reason: string;
    };

const SUPPORTED_FLAGS = "dgimsuvy";

// JavaScript's \s: WhiteSpace and LineTerminator code points (RE2's \s is ASCII only).
const SPACE =
  "\\t\\n\\x{b}\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}";
// Everything but SPACE, for \S inside a class (a class cannot hold a negated class).
const NOT_SPACE =
  "\\x{0}-\\x{8}\\x{e}-\\x{1f}\\x{21}-\\x{9f}\\x{a1}-\\x{167f}\\x{1681}-\\x{1fff}\\x{200b}-\\x{2027}\\x{202a}-\\x{202e}\\x{2030}-\\x{205e}\\x{2060}-\\x{2fff}\\x{3001}-\\x{fefe}\\x{ff00}-\\x{10ffff}";
// Without `s`, JavaScript's dot stops at every line terminator, not only \n.
const DOT = "[^\\n\\r\\x{2028}\\x{2029}]";

const REWRITE =
  "rewrite the pattern without it, or test the text in code (a createScorer function)";

class Unsupported extends Error {}

// re2js is a large module: loaded (synchronously, its CommonJS build) on the first pattern.
let loaded: typeof RE2JSClass | undefined;
function re2(): typeof RE2JSClass {
  loaded ??= (createRequire(import.meta.url)("re2js") as { RE2JS: typeof RE2JSClass }).RE2JS;
  return loaded;
}

/**
 * Compile a JavaScript regular expression source for linear-time matching. Never throws:
 * an invalid pattern or flag, or a construct RE2 cannot run (backreferences, lookahead,
 * `v`-flag set operations), is `{ ok: false, reason }` with what to do.
 * Flags: `i`, `m`, `s` and `u` keep their meaning; `y` anchors at the start; `g` and `d` are
 * ignored (a test is stateless). Matching is by code point, as with `u`. With `m`, `^` and `$`
 * take `\r`, U+2028 and U+2029 as line ends too, as in JavaScript, since each is matched as `\n`;
 * a pattern that names a line terminator itself (`\r\n`, `\x0d`, `\u2028`; `\s` does not) sees
 * them as they are, and its `^` and `$` see only `\n`.
 * @example
 * const compiled = compileLinearRegex("^(a|aa)*c$", "i");
 * compiled.ok && compiled.regex.test("AAAc"); // true
 */
export function compileLinearRegex(source: string, flags = ""): LinearRegexResult {
  // In reasons, cut: a pattern may be megabytes long, and a reason stays short.
  const shown = previewRegex(source, flags);
  for (let i = 0; i < flags.length; i++) {
    const flag = flags[i]!;
    if (!SUPPORTED_FLAGS.includes(flag) || flags.indexOf(flag) !== i) {
      return {
        ok: false,
        problem: "invalid",
        reason: `invalid flags ${preview(flags)}: use each of ${SUPPORTED_FLAGS} at most once`,
      };
    }
  }
  try {
    // JavaScript's parser is the judge of the syntax; it only parses, it does not match.
    new RegExp(source, flags);
  } catch (error) {
    // Its message holds the whole pattern: the cut one stands in its place.
    const reason = errorMessage(error).replace(`/${source}/${flags}`, shown);
    return { ok: false, problem: "invalid", reason: cutDetail(reason) };
  }
  let translated: string;
  try {
    translated = translate(source, flags);
  } catch (error) {
    return {
      ok: false,
      problem: "unsupported",
      reason: `pattern ${shown} uses ${errorMessage(error)}, which the linear-time engine (RE2) cannot run; ${REWRITE}`,
    };
  }
  if (flags.includes("y")) translated = `\\A(?:${translated})`;
  const RE2JS = re2();
  let bits = RE2JS.LOOKBEHINDS;
  if (flags.includes("i")) bits |= RE2JS.CASE_INSENSITIVE;
  if (flags.includes("m")) bits |= RE2JS.MULTILINE;
  if (flags.includes("s")) bits |= RE2JS.DOTALL;
  let engine: RE2JSClass;
  try {
    engine = RE2JS.compile(translated, bits);
  } catch (error) {
    const detail = cutDetail(errorMessage(error).replace(/^error parsing regexp: /, ""));
    return {
      ok: false,
      problem: "unsupported",
      reason: `pattern ${shown} cannot run on the linear-time engine (RE2: ${detail}); ${REWRITE}`,
    };
  }
  // RE2's `^` and `$` under `m` see only `\n` as a line end; JavaScript's see all four.
  const sameLineEnds = flags.includes("m") && !namesLineTerminator(source);
  const regex: LinearRegex = {
    source,
    flags,
    test: (text) => engine.test(sameLineEnds ? toLineFeeds(text) : text),
    toString: () => `/${source}/${flags}`,
  };
  return { ok: true, regex };
}

/** An engine's message for a reason: it may quote the pattern, which may be megabytes long. */
const cutDetail = (detail: string): string =>
  detail.length > MAX_DETAIL ? `${detail.slice(0, MAX_DETAIL)}…` : detail;
const MAX_DETAIL = 300;

/** Rewrite JavaScript regex syntax as RE2 syntax with the same meaning; throws Unsupported. */
function translate(source: string, flags: string): string {
  const unicode = flags.includes("u") || flags.includes("v");
  const dotAll = flags.includes("s");
  let out = "";
  let inClass = false;
  // Whether the last thing written can take a quantifier (so `{` may be one).
  let atom = false;
  for (let i = 0; i < source.length; i++) {
    const char = source[i]!;
    if (char === "\\") {
      if (inClass && flags.includes("v") && source.startsWith("\\q{", i)) {
        throw new Unsupported("a string literal in a class (the v flag's \\q{})");
      }
      const read = readEscape(source, i, unicode, inClass);
      out += read.text;
      i = read.end;
      atom = true;
      continue;
    }
    if (inClass) {
      if (char === "]") {
        inClass = false;
        out += "]";
        atom = true;
        continue;
      }
      if (char === "[") {
        if (flags.includes("v")) throw new Unsupported("a nested class (v-flag set operations)");
        out += "\\[";
      } else if (
        flags.includes("v") &&
        (source.startsWith("--", i) || source.startsWith("&&", i))
      ) {
        throw new Unsupported("class set operations (the v flag's -- and &&)");
      } else out += char;
      continue;
    }
    if (char === "[") {
      if (source.startsWith("[^]", i)) {
        out += "(?s:.)";
        i += 2;
        atom = true;
        continue;
      }
      if (source.startsWith("[]", i)) {
        out += "[^\\x{0}-\\x{10ffff}]";
        i += 1;
        atom = true;
        continue;
      }
      inClass = true;
      out += "[";
      if (source[i + 1] === "^") {
        out += "^";
        i++;
      }
      continue;
    }
    if (char === "(") {
      if (source.startsWith("(?=", i) || source.startsWith("(?!", i)) {
        throw new Unsupported("a lookahead (?= or (?!");
      }
      if (source.startsWith("(?<", i) && source[i + 3] !== "=" && source[i + 3] !== "!") {
        out += "(?P<";
        i += 2;
      } else out += "(";
      atom = false;
      continue;
    }
    if (char === ".") {
      out += dotAll ? "." : DOT;
      atom = true;
      continue;
    }
    if (char === "{") {
      const quantifier = /^\{\d+(,\d*)?\}/.exec(source.slice(i, i + 24));
      if (atom && quantifier) {
        out += quantifier[0];
        i += quantifier[0].length - 1;
        atom = false;
        continue;
      }
      out += "\\{";
      atom = true;
      continue;
    }
    if (char === "}" || char === "]") {
      out += `\\${char}`;
      atom = true;
      continue;
    }
    out += char;
    atom = char === ")" || !"|^$*+?".includes(char);
  }
  return out;
}

const hex = (code: number) => `\\x{${code.toString(16)}}`;

/** One escape at `start` (the backslash) as RE2 syntax, and the index of its last character. */
function readEscape(
  source: string,
  start: number,
  unicode: boolean,
  inClass: boolean,
): { text: string; end: number } {
  const next = source[start + 1] ?? "";
  const end = start + 1;
  switch (next) {
    case "d":
    case "D":
    case "w":
    case "W":
    case "f":
    case "n":
    case "r":
    case "t":
      return { text: `\\${next}`, end };
    case "v":
      return { text: "\\x{b}", end };
    case "s":
      return { text: inClass ? SPACE : `[${SPACE}]`, end };
    case "S":
      return { text: inClass ? NOT_SPACE : `[^${SPACE}]`, end };
    case "b":
      return { text: inClass ? "\\x{8}" : "\\b", end };
    case "B":
      return { text: inClass ? "B" : "\\B", end };
    case "0":
      if (!/[0-9]/.test(source[start + 2] ?? "")) return { text: "\\x{0}", end };
      throw new Unsupported("a legacy octal escape (\\0 followed by a digit)");
    case "c": {
      const letter = source[start + 2] ?? "";
      if (/[A-Za-z]/.test(letter)) return { text: hex(letter.charCodeAt(0) % 32), end: end + 1 };
      return { text: "\\\\", end: start };
    }
    case "x": {
      const digits = /^[0-9a-fA-F]{2}/.exec(source.slice(start + 2, start + 4));
      if (digits) return { text: hex(Number.parseInt(digits[0], 16)), end: end + 2 };
      return { text: "x", end };
    }
    case "u":
      return readUnicodeEscape(source, start, unicode);
    case "k":
      if (unicode || (/^\\k<[^>]+>/.test(source.slice(start)) && hasNamedGroup(source))) {
        throw new Unsupported("a named backreference (\\k<name>)");
      }
      return { text: "k", end };
    case "p":
    case "P": {
      if (!unicode) return { text: next, end };
      const body = /^\{([^}]*)\}/.exec(source.slice(start + 2));
      if (!body) return { text: next, end };
      return { text: `\\${next}{${unicodeProperty(body[1]!)}}`, end: end + body[0].length };
    }
    default:
      if (/[1-9]/.test(next)) {
        throw new Unsupported(`a backreference (\\${next})`);
      }
      // Identity escapes: a letter stands for itself in JavaScript (RE2 gives some a meaning).
      if (/[A-Za-z]/.test(next)) return { text: next, end };
      return { text: `\\${next}`, end };
  }
}

function readUnicodeEscape(
  source: string,
  start: number,
  unicode: boolean,
): { text: string; end: number } {
  const braced = unicode ? /^\{([0-9a-fA-F]+)\}/.exec(source.slice(start + 2)) : null;
  if (braced)
    return { text: hex(Number.parseInt(braced[1]!, 16)), end: start + 1 + braced[0].length };
  const four = /^[0-9a-fA-F]{4}/.exec(source.slice(start + 2, start + 6));
  if (!four) return { text: "u", end: start + 1 };
  const code = Number.parseInt(four[0], 16);
  if (code >= 0xd800 && code <= 0xdbff) {
    const low = /^\\u([dD][c-fC-F][0-9a-fA-F]{2})/.exec(source.slice(start + 6, start + 12));
    if (low) {
      const pair = (code - 0xd800) * 0x400 + (Number.parseInt(low[1]!, 16) - 0xdc00) + 0x10000;
      return { text: hex(pair), end: start + 11 };
    }
  }
  if (code >= 0xd800 && code <= 0xdfff) {
    throw new Unsupported("a lone surrogate escape (RE2 matches whole code points)");
  }
  return { text: hex(code), end: start + 5 };
}

// RE2 knows short names (\p{L}, \p{Greek}); JavaScript also writes Script=… and gc=… forms.
function unicodeProperty(body: string): string {
  const at = body.indexOf("=");
  let name = body;
  if (at >= 0) {
    const key = body.slice(0, at);
    if (!["Script", "sc", "General_Category", "gc", "Script_Extensions", "scx"].includes(key)) {
      return body;
    }
    name = body.slice(at + 1);
  }
  // RE2 knows a general category by its short name only (\p{L}, not \p{Letter}).
  return GENERAL_CATEGORY[name] ?? name;
}

/** JavaScript's long names (and aliases) of the general categories, to the short names RE2 reads. */
const GENERAL_CATEGORY: Readonly<Record<string, string>> = {
  Letter: "L",
  Lowercase_Letter: "Ll",
  Uppercase_Letter: "Lu",
  Titlecase_Letter: "Lt",
  Modifier_Letter: "Lm",
  Other_Letter: "Lo",
  Mark: "M",
  Combining_Mark: "M",
  Nonspacing_Mark: "Mn",
  Spacing_Mark: "Mc",
  Enclosing_Mark: "Me",
  Number: "N",
  Decimal_Number: "Nd",
  digit: "Nd",
  Letter_Number: "Nl",
  Other_Number: "No",
  Punctuation: "P",
  punct: "P",
  Connector_Punctuation: "Pc",
  Dash_Punctuation: "Pd",
  Open_Punctuation: "Ps",
  Close_Punctuation: "Pe",
  Initial_Punctuation: "Pi",
  Final_Punctuation: "Pf",
  Other_Punctuation: "Po",
  Symbol: "S",
  Math_Symbol: "Sm",
  Currency_Symbol: "Sc",
  Modifier_Symbol: "Sk",
  Other_Symbol: "So",
  Separator: "Z",
  Space_Separator: "Zs",
  Line_Separator: "Zl",
  Paragraph_Separator: "Zp",
  Other: "C",
  Control: "Cc",
  cntrl: "Cc",
  Format: "Cf",
  Surrogate: "Cs",
  Private_Use: "Co",
};

const hasNamedGroup = (source: string) => /\(\?<[^=!]/.test(source);
