/** What the scan knows about the group being read. */
interface Frame {
  /** The group holds a quantifier that can take a variable number of repetitions. */
  variable: boolean;
  /** The group holds an alternation. */
  alternation: boolean;
}

/** The most recent thing a quantifier could apply to: a plain atom, or a closed group. */
type Atom = { readonly group: false } | { readonly group: true; readonly frame: Frame };

const PLAIN: Atom = { group: false };

/** Parse `{n}`, `{n,}` or `{n,m}` at `index`; null when the brace is a literal. */
function braceQuantifier(
  pattern: string,
  index: number,
): { min: number; max: number; end: number } | null {
  const match = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(index, index + 24));
  if (!match) return null;
  const min = Number(match[1]);
  const max = match[2] === undefined ? min : match[3] ? Number(match[3]) : Number.POSITIVE_INFINITY;
  return { min, max, end: index + match[0].length - 1 };
}

/**
 * Whether a pattern has the shapes that make backtracking blow up: a repeated group that
 * itself holds a variable quantifier (`(a+)+`, `(\w{1,3})*`) or an alternation (`(a|ab)*`).
 * A heuristic with false positives; it only decides which patterns run under a time limit.
 */
export function mayBacktrackCatastrophically(pattern: string, flags: string): boolean {
  const nestedClasses = flags.includes("v");
  const stack: Frame[] = [{ variable: false, alternation: false }];
  let last: Atom | null = null;
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index];
    const frame = stack[stack.length - 1]!;
    let quantifier: { min: number; max: number } | null = null;
    if (char === "\\") {
      index++;
      last = PLAIN;
    } else if (char === "[") {
      let depth = 1;
      while (depth > 0 && ++index < pattern.length) {
        const inner = pattern[index];
        if (inner === "\\") index++;
        else if (inner === "]") depth--;
        else if (inner === "[" && nestedClasses) depth++;
      }
      last = PLAIN;
    } else if (char === "(") {
      stack.push({ variable: false, alternation: false });
      // Skip the group's `?:`, `?=`, `?<name>` prefix so its `?` is not read as a quantifier.
      if (pattern[index + 1] === "?") index++;
      last = null;
    } else if (char === ")") {
      const closed = stack.length > 1 ? stack.pop()! : frame;
      const parent = stack[stack.length - 1]!;
      parent.variable ||= closed.variable;
      parent.alternation ||= closed.alternation;
      last = { group: true, frame: closed };
    } else if (char === "|") {
      frame.alternation = true;
      last = null;
    } else if (char === "*") quantifier = { min: 0, max: Number.POSITIVE_INFINITY };
    else if (char === "+") quantifier = { min: 1, max: Number.POSITIVE_INFINITY };
    else if (char === "?") quantifier = { min: 0, max: 1 };
    else if (char === "{") {
      const brace = braceQuantifier(pattern, index);
      if (brace) {
        quantifier = brace;
        index = brace.end;
      } else last = PLAIN;
    } else last = PLAIN;
    if (quantifier && last) {
      if (last.group && quantifier.max >= 2 && (last.frame.variable || last.frame.alternation)) {
        return true;
      }
      if (quantifier.max > quantifier.min && quantifier.max >= 2) frame.variable = true;
      last = null;
    }
  }
  return false;
}
