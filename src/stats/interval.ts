import { hasSpread } from "./spread.js";

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
  // At 0 of n (n of n) the bound is 0 (1) exactly, not what rounding leaves of center − half.
  return {
    low: successes <= 0 ? 0 : Math.max(0, center - half),
    high: successes >= n ? 1 : Math.min(1, center + half),
    level: 0.95,
    method: "wilson",
  };
}

/**
 * 95% interval of a mean from its sample sd and n: Student's t with n - 1 degrees of freedom, so
 * a mean of a few cases gets the width its sd warrants (at n = 3, 4.30 sd/√n rather than the
 * normal approximation's 1.96). Null below n = 2, and when the values are all equal but for
 * rounding: three scores of 0.9 do not make 0.9–0.9 a 95% interval.
 */
export function meanInterval(mean: number, sd: number | null, n: number): Interval | null {
  // Equal values are the size of their mean.
  if (n < 2 || sd === null || !Number.isFinite(sd) || !hasSpread(sd, mean)) return null;
  const half = (t975(n - 1) * sd) / Math.sqrt(n);
  return { low: mean - half, high: mean + half, level: 0.95, method: "t" };
}

/** Student's t quantile at 0.975 for 1 to 30 degrees of freedom. */
const T975 = [
  12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004, 2.262157,
  2.228139, 2.200985, 2.178813, 2.160369, 2.144787, 2.13145, 2.119905, 2.109816, 2.100922, 2.093024,
  2.085963, 2.079614, 2.073873, 2.068658, 2.063899, 2.059539, 2.055529, 2.051831, 2.048407, 2.04523,
  2.042272,
];

/**
 * Student's t quantile at 0.975 for `df` degrees of freedom: the table up to 30, then the
 * Cornish-Fisher expansion around z (within 1e-5 of the exact value there, and closer as df grows).
 */
export function t975(df: number): number {
  if (df < 1) return Number.NaN;
  if (df <= 30) return T975[Math.floor(df) - 1]!;
  const z = Z95;
  const z3 = z ** 3;
  const z5 = z ** 5;
  const z7 = z ** 7;
  return (
    z +
    (z3 + z) / (4 * df) +
    (5 * z5 + 16 * z3 + 3 * z) / (96 * df ** 2) +
    (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * df ** 3)
  );
}
