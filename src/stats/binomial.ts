import type { Random } from "./random.js";

/**
 * Binomial arithmetic in log space, so that tails and probabilities stay finite for n in the
 * hundreds of thousands (where C(n, k) and 2^n overflow a double).
 */

const LANCZOS = [
  0.9999999999998099, 676.5203681218851, -1259.1392167224028, 771.3234287776531, -176.6150291621406,
  12.507343278686905, -0.13857109526572012, 9.984369578019572e-6, 1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0 (Lanczos, g = 7: about 15 significant digits). */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
  const y = x - 1;
  let sum = LANCZOS[0]!;
  for (let i = 1; i < LANCZOS.length; i++) sum += LANCZOS[i]! / (y + i);
  const t = y + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (y + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** ln C(n, k); -Infinity outside 0 ≤ k ≤ n. Exact sums of logs for small k. */
export function logChoose(n: number, k: number): number {
  if (k < 0 || k > n) return Number.NEGATIVE_INFINITY;
  const j = Math.min(k, n - k);
  if (j <= 30) {
    let value = 0;
    for (let i = 1; i <= j; i++) value += Math.log((n - j + i) / i);
    return value;
  }
  return logGamma(n + 1) - logGamma(k + 1) - logGamma(n - k + 1);
}

/**
 * P[X ≤ k] for X ~ Binomial(n, ½), for k ≤ n/2 summed downwards from the largest term
 * (each term is the one above times i/(n−i+1)) until the rest cannot change the sum.
 */
export function binomialHalfLowerTail(k: number, n: number): number {
  if (k < 0) return 0;
  if (k >= n) return 1;
  if (2 * k >= n) return 1 - binomialHalfLowerTail(n - k - 1, n);
  const logTop = logChoose(n, k) - n * Math.LN2;
  let term = 1;
  let sum = 1;
  for (let i = k; i > 0; i--) {
    term *= i / (n - i + 1);
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return Math.min(1, Math.exp(logTop + Math.log(sum)));
}

/**
 * One draw of Binomial(n, p), exact up to rounding: inversion searching outwards from the
 * mode, so the work is about the standard deviation, not n.
 */
export function sampleBinomial(random: Random, n: number, p: number): number {
  if (n <= 0 || p <= 0) return 0;
  if (p >= 1) return n;
  const q = 1 - p;
  const mode = Math.min(n, Math.floor((n + 1) * p));
  const pMode = Math.exp(logChoose(n, mode) + mode * Math.log(p) + (n - mode) * Math.log(q));
  let u = random.float() - pMode;
  if (u < 0) return mode;
  const odds = p / q;
  let low = mode;
  let high = mode;
  let pLow = pMode;
  let pHigh = pMode;
  while (low > 0 || high < n) {
    if (high < n) {
      pHigh *= ((n - high) / (high + 1)) * odds;
      high++;
      u -= pHigh;
      if (u < 0) return high;
    }
    if (low > 0) {
      pLow *= low / (n - low + 1) / odds;
      low--;
      u -= pLow;
      if (u < 0) return low;
    }
  }
  // Only rounding is left over.
  return mode;
}
