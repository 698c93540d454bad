// A line diff of two texts, decided on the whole texts: only what is drawn is bounded.

/** One line of a diff: kept, taken from the left side, or added on the right. */
export interface DiffLine {
  kind: "same" | "del" | "add";
  text: string;
}

/** A diff as drawn: the lines around the change, and what was left out of it, counted. */
export interface LineDiff {
  /** Whether the whole texts are equal (never decided on a part of them). */
  equal: boolean;
  lines: DiffLine[];
  /** Equal lines not drawn before the first change and after the last. */
  sameBefore: number;
  sameAfter: number;
  /** Lines of the changed part of each side past `limit`, not compared line by line. */
  leftOut: { a: number; b: number };
}

/** Equal lines drawn around a change, as `diff -u` does. */
const CONTEXT = 3;

/**
 * The lines of `a` and `b` that differ, with a few equal lines around them. Equal lines at both
 * ends are counted, not compared again; the changed part of each side is compared by longest common
 * subsequence over at most `limit` lines, and the lines past it are counted in `leftOut`.
 */
export function lineDiff(a: string, b: string, limit = 1500): LineDiff {
  if (a === b)
    return { equal: true, lines: [], sameBefore: 0, sameAfter: 0, leftOut: { a: 0, b: 0 } };
  const x = a.split("\n");
  const y = b.split("\n");
  let start = 0;
  while (start < x.length && start < y.length && x[start] === y[start]) start++;
  let end = 0;
  while (
    end < x.length - start &&
    end < y.length - start &&
    x[x.length - 1 - end] === y[y.length - 1 - end]
  )
    end++;
  const before = Math.max(0, start - CONTEXT);
  const midX = x.slice(start, x.length - end);
  const midY = y.slice(start, y.length - end);
  const cutX = midX.slice(0, limit);
  const cutY = midY.slice(0, limit);
  const leftOut = { a: midX.length - cutX.length, b: midY.length - cutY.length };
  const cut = leftOut.a > 0 || leftOut.b > 0;
  // Trailing context only when the changed part was drawn whole: after a cut it would mislead.
  const after = cut ? 0 : Math.min(end, CONTEXT);
  const lines: DiffLine[] = [
    ...x.slice(before, start).map((text) => ({ kind: "same" as const, text })),
    ...lcsLines(cutX, cutY),
    ...x
      .slice(x.length - end, x.length - end + after)
      .map((text) => ({ kind: "same" as const, text })),
  ];
  return { equal: false, lines, sameBefore: before, sameAfter: cut ? 0 : end - after, leftOut };
}

/** The lines of two short lists as kept, deleted and added, by longest common subsequence. */
function lcsLines(x: string[], y: string[]): DiffLine[] {
  const n = x.length;
  const m = y.length;
  const L = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      L[i]![j] = x[i] === y[j] ? L[i + 1]![j + 1]! + 1 : Math.max(L[i + 1]![j]!, L[i]![j + 1]!);
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) {
      out.push({ kind: "same", text: x[i]! });
      i++;
      j++;
    } else if (i < n && (j >= m || L[i + 1]![j]! >= L[i]![j + 1]!)) {
      out.push({ kind: "del", text: x[i]! });
      i++;
    } else {
      out.push({ kind: "add", text: y[j]! });
      j++;
    }
  }
  return out;
}
