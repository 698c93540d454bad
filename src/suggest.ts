/**
 * The known name closest to a mistyped one, when it is close enough to be what was meant (at
 * most 2 edits, fewer for short names): what "did you mean" offers for an unknown option.
 */
export function closest(name: string, known: Iterable<string>): string | undefined {
  const most = name.length <= 4 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = most + 1;
  for (const candidate of known) {
    const d = editDistance(name, candidate, bestDistance);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * Insertions, deletions, substitutions and swaps of two neighbours that turn `a` into `b`
 * (optimal string alignment); counting stops at `limit`, which is returned for anything farther.
 */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) >= limit) return limit;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, before[j - 2]! + 1);
      row.push(d);
      rowMin = Math.min(rowMin, d);
    }
    if (rowMin >= limit) return limit;
    before = previous;
    previous = row;
  }
  return Math.min(previous[b.length]!, limit);
}
