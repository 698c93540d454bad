/** A two-sided interval, with how it was computed. */
export interface Interval {
  low: number;
  high: number;
  /** Confidence level, e.g. 0.95. */
  level: number;
  method: "wilson" | "clt" | "bootstrap" | "t";
}

/** z for a two-sided 95% interval. */
export const Z95 = 1.959963984540054;

/**
 * Wilson score interval of a proportion (successes out of n). Stays inside [0, 1] and is
 * honest at 0/n and n/n, unlike the normal approximation. Null when n is 0.
 */
export function wilsonInterval(successes: number, n: number, z = Z95): Interval | null {
  if (!(n > 0)) return null;
  const p = successes / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  return {
    low: Math.max(0, center - half),
    high: Math.min(1, center + half),
    level: 0.95,
    method: "wilson",
  };
}

/** Normal-approximation (CLT) interval of a mean from its sample sd and n. Null below n = 2. */
export function meanInterval(mean: number, sd: number | null, n: number, z = Z95): Interval | null {
  if (n < 2 || sd === null || !Number.isFinite(sd)) return null;
  const half = (z * sd) / Math.sqrt(n);
  return { low: mean - half, high: mean + half, level: 0.95, method: "clt" };
}
