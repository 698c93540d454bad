/**
 * Wilson score interval for a proportion (95% by default): honest at small n and at 0% or
 * 100%, where the normal approximation collapses to a zero-width interval.
 */
export function wilsonInterval(
  successes: number,
  n: number,
  z = 1.959964,
): { low: number; high: number } | null {
  if (n <= 0) return null;
  const p = successes / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}
