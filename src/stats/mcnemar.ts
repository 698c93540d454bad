import { binomialHalfLowerTail } from "./binomial.js";

/** The result of an exact McNemar test. */
export interface McNemarResult {
  /** Pairs that went from pass to fail (base passed, head failed). */
  worse: number;
  /** Pairs that went from fail to pass. */
  better: number;
  /** Discordant pairs: worse + better. */
  discordant: number;
  /** Two-sided exact p: min(1, 2·P[X ≤ min(b, c)]) for X ~ Binomial(b + c, ½). 1 without discordant pairs. */
  pValue: number;
  method: "mcnemar-exact";
}

/**
 * Exact McNemar test on the discordant pairs of two paired pass/fail samples (equivalently the
 * exact sign test). Stable for b + c in the hundreds of thousands.
 * @example
 * mcnemarExact(1, 9).pValue; // 0.021484375
 */
export function mcnemarExact(worse: number, better: number): McNemarResult {
  if (!(Number.isInteger(worse) && Number.isInteger(better) && worse >= 0 && better >= 0)) {
    throw new RangeError(
      `mcnemarExact needs non-negative integer counts, got ${worse} and ${better}`,
    );
  }
  const n = worse + better;
  const pValue = n === 0 ? 1 : Math.min(1, 2 * binomialHalfLowerTail(Math.min(worse, better), n));
  return { worse, better, discordant: n, pValue, method: "mcnemar-exact" };
}
