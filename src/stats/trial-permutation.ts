import { logChoose } from "./binomial.js";
import { normalCdf } from "./normal.js";
import { createRandom, type Random } from "./random.js";

// The pass rate's test when cases ran trials. Under "nothing changed", each trial of a case passes
// with the same chance in both runs, so a case's trials of both runs are exchangeable: given how
// many of them passed (s of N = b + h), which of them were the head run's is a random draw, and
// the head's passes X follow the hypergeometric law (N, s, h). The statistic is the sum over cases
// of the pass-share differences X/h − (s − X)/b (the mean difference the comparison shows, times
// n), centred on 0 under that law whatever the trial counts. A case whose trials all passed or all
// failed cannot move. With one trial per case in both runs this is McNemar's exact test.
// Sign-flipping the share differences, as for scores, assumes each is as likely negative as
// positive, which unequal trial counts break: with 1 trial against 10 at a 0.95 pass rate, a case
// is mostly 0.9 − 1 (one of ten head trials failed) and rarely 1 − 0 (the one base trial failed),
// and 20 such cases of pure noise were called a fall in a third of seeded pairs.

/** How a {@link TrialPermutationTest}'s p-value was obtained. */
export type TrialPermutationMethod = "exact" | "monte-carlo" | "normal";

/** The permutation test of each case's trials between two runs. */
export interface TrialPermutationTest {
  /** Two-sided p-value of "each case's trials pass alike in both runs". */
  pValue: number;
  method: TrialPermutationMethod;
  /** Cases with passing and failing trials over both runs: only their trials can move. */
  mixed: number;
  /** Random permutations drawn (monte-carlo only). */
  resamples: number;
  /**
   * The smallest p these cases' passes allow: that of the most extreme way to deal them (1 with
   * no mixed case). Above the gate's alpha, no result of these cases could be called a change.
   */
  smallestP: number;
  /**
   * Fewest mixed cases like these with which the test could fall below the alpha asked for
   * (`TrialPermutationOptions.alpha`), from the mean chance of a case's most extreme deal.
   */
  needed: number;
}

/** Per case: passing and judged trials in each run (judged trials at least 1 on both sides). */
export interface CaseTrials {
  basePassed: ArrayLike<number>;
  baseTrials: ArrayLike<number>;
  headPassed: ArrayLike<number>;
  headTrials: ArrayLike<number>;
}

/** Options of {@link trialPermutationTest}. */
export interface TrialPermutationOptions {
  /** Random permutations when the law cannot be summed exactly (default 10,000; under 1,000: the normal approximation). */
  resamples?: number;
  seed?: number;
  /** Most mixed cases × resamples drawn (default 2·10^7); beyond it, the normal approximation. */
  budget?: number;
  /** The alpha `needed` is counted at (default 0.05). */
  alpha?: number;
  /** Most steps summing the exact law may take (default 2·10^7); beyond them, drawn at random. */
  exactSteps?: number;
}

/** Fewest random permutations drawn; with fewer asked, the normal approximation is used. */
const MIN_DRAWS = 1000;
/** Most sums the exact law's lattice may hold, and most steps summing it takes (by default). */
const EXACT_SUMS = 1_000_000;
const EXACT_STEPS = 20_000_000;

/** Cases that share trial counts and passes: one law of their contribution. */
interface Stratum {
  b: number;
  h: number;
  s: number;
  /** The support's smallest head pass count. */
  low: number;
  /** Head passes of its cases, as observed, summed. */
  headPassed: number;
  /** The contribution x/h − (s − x)/b of each head pass count x of the support, in order. */
  values: Float64Array;
  probabilities: Float64Array;
  /** Cumulative probabilities, for drawing. */
  cumulative: Float64Array;
  cases: number;
}

/**
 * Two-sided p-value that each case's trials pass alike in both runs: the share of ways to deal
 * each case's passes between its base and head trials whose sum of share differences is at least
 * as far from zero as the observed one. Exact (the law summed) while that is small, else drawn at
 * random (seeded, with the usual +1 correction), or, past the budget, the normal approximation
 * with the hypergeometric variances.
 * @example
 * // 8 cases, each passing its one base trial and 1 of 3 head trials
 * trialPermutationTest({ basePassed: Array(8).fill(1), baseTrials: Array(8).fill(1), headPassed: Array(8).fill(1), headTrials: Array(8).fill(3) }).pValue;
 */
export function trialPermutationTest(
  cases: CaseTrials,
  options: TrialPermutationOptions = {},
): TrialPermutationTest {
  const { strata, observed, variance, mixed, scale } = strataOf(cases);
  const reach = extremes(strata.map(stratumEnds), mixed, options.alpha ?? 0.05);
  if (mixed === 0) return { pValue: 1, method: "exact", mixed: 0, resamples: 0, ...reach };
  // Sums equal to the observed one up to rounding count as extreme.
  const threshold = Math.abs(observed) - 1e-9 * scale;
  const exact = exactShare(strata, options.exactSteps ?? EXACT_STEPS);
  if (exact !== undefined) return { pValue: exact, method: "exact", mixed, resamples: 0, ...reach };
  const resamples = options.resamples ?? 10_000;
  if (resamples >= MIN_DRAWS && mixed * resamples <= (options.budget ?? 2e7)) {
    const extreme = drawnExtremes(strata, threshold, resamples, options.seed ?? 1);
    const pValue = (extreme + 1) / (resamples + 1);
    return { pValue, method: "monte-carlo", mixed, resamples, ...reach };
  }
  const z = Math.abs(observed) / Math.sqrt(variance);
  const pValue = Math.min(1, 2 * normalCdf(-z));
  return { pValue, method: "normal", mixed, resamples: 0, ...reach };
}

/** A case's (or a stratum's) two most extreme deals: their contributions and log-chances. */
interface Ends {
  cases: number;
  high: number;
  low: number;
  logHigh: number;
  logLow: number;
}

/** The ends of a stratum of pass counts: the largest and smallest head pass counts. */
const stratumEnds = ({ values, probabilities, cases }: Stratum): Ends => ({
  cases,
  high: values[values.length - 1]!,
  low: values[0]!,
  logHigh: Math.log(probabilities[probabilities.length - 1]!),
  logLow: Math.log(probabilities[0]!),
});

/**
 * The smallest p of these mixed cases: every case dealt to its largest contribution, or every
 * one to its smallest, whichever sum is farther from 0 (both when they are as far); and the
 * mixed cases that the mean log-chance of those deals needs to fall below `alpha`.
 */
function extremes(ends: readonly Ends[], mixed: number, alpha: number) {
  if (mixed === 0) return { smallestP: 1, needed: casesToReach(alpha, 1, 1) };
  let high = 0;
  let low = 0;
  let logHigh = 0;
  let logLow = 0;
  for (const end of ends) {
    high += end.cases * end.high;
    low += end.cases * end.low;
    logHigh += end.cases * end.logHigh;
    logLow += end.cases * end.logLow;
  }
  const far = Math.max(Math.abs(high), Math.abs(low)) * (1 - 1e-9);
  const logs = [
    ...(Math.abs(high) >= far ? [logHigh] : []),
    ...(Math.abs(low) >= far ? [logLow] : []),
  ];
  const smallestP = Math.min(
    1,
    logs.reduce((sum, log) => sum + Math.exp(log), 0),
  );
  // Cases like these, dealt to the same extreme: their chances multiply, the extremes counted add.
  const perCase = -Math.max(...logs) / mixed;
  const needed = Math.max(1, Math.floor((Math.log(logs.length) - Math.log(alpha)) / perCase) + 1);
  return { smallestP, needed };
}

/**
 * The smallest two-sided p the test can give over cases of these trial counts, whatever their
 * results: each case's every pass in one run and every failure in the other, as likely as
 * 1/C(b + h, h); both ways only when every case ran as many trials in both runs (2/2^n with one
 * trial each, as McNemar's), since otherwise the opposite deal is nearer 0.
 */
export function smallestTrialPermutationP(
  baseTrials: ArrayLike<number>,
  headTrials: ArrayLike<number>,
): number {
  let log = 0;
  let balanced = true;
  for (let i = 0; i < baseTrials.length; i++) {
    log -= logChoose(baseTrials[i]! + headTrials[i]!, headTrials[i]!);
    if (baseTrials[i] !== headTrials[i]) balanced = false;
  }
  return Math.min(1, Math.exp(log + (balanced ? Math.LN2 : 0)));
}

/** Fewest cases of `baseTrials` against `headTrials` with which the test could fall below `alpha`. */
export function casesToReach(alpha: number, baseTrials: number, headTrials: number): number {
  const perCase = logChoose(baseTrials + headTrials, headTrials);
  const ways = baseTrials === headTrials ? Math.LN2 : 0;
  return Math.max(1, Math.floor((ways - Math.log(alpha)) / perCase) + 1);
}

/** The mixed cases grouped by (b, h, s), the observed sum and its variance under the law. */
function strataOf(cases: CaseTrials) {
  const byKey = new Map<string, Stratum>();
  let observed = 0;
  let variance = 0;
  let mixed = 0;
  let scale = 0;
  for (let i = 0; i < cases.baseTrials.length; i++) {
    const b = cases.baseTrials[i]!;
    const h = cases.headTrials[i]!;
    const s = cases.basePassed[i]! + cases.headPassed[i]!;
    if (b < 1 || h < 1 || s === 0 || s === b + h) continue;
    mixed++;
    observed += cases.headPassed[i]! / h - cases.basePassed[i]! / b;
    const n = b + h;
    const weight = 1 / h + 1 / b;
    variance += weight * weight * ((h * s * (n - s) * (n - h)) / (n * n * (n - 1)));
    scale += 2;
    const key = `${b},${h},${s}`;
    const stratum = byKey.get(key) ?? hypergeometric(b, h, s);
    stratum.cases++;
    stratum.headPassed += cases.headPassed[i]!;
    byKey.set(key, stratum);
  }
  return { strata: [...byKey.values()], observed, variance, mixed, scale };
}

/** The law of one case's contribution: head passes x of s, over the support of x. */
function hypergeometric(b: number, h: number, s: number): Stratum {
  const low = Math.max(0, s - b);
  const high = Math.min(s, h);
  const size = high - low + 1;
  const values = new Float64Array(size);
  const logs = new Float64Array(size);
  let most = Number.NEGATIVE_INFINITY;
  for (let k = 0; k < size; k++) {
    const x = low + k;
    values[k] = x / h - (s - x) / b;
    logs[k] = logChoose(h, x) + logChoose(b, s - x);
    most = Math.max(most, logs[k]!);
  }
  const probabilities = new Float64Array(size);
  let total = 0;
  for (let k = 0; k < size; k++) total += probabilities[k] = Math.exp(logs[k]! - most);
  const cumulative = new Float64Array(size);
  let running = 0;
  for (let k = 0; k < size; k++) {
    probabilities[k]! /= total;
    running += probabilities[k]!;
    cumulative[k] = running;
  }
  cumulative[size - 1] = 1;
  return { b, h, s, low, headPassed: 0, values, probabilities, cumulative, cases: 0 };
}

/**
 * P[|sum| ≥ |observed|] summed over the law of the sum, case by case, on the lattice of the
 * fractions of trials (every contribution is a whole multiple of 1/unit, unit the least common
 * multiple of the trial counts), so sums compare exactly; undefined when the lattice or the
 * summing is too large (the caller draws instead).
 */
function exactShare(strata: readonly Stratum[], maxSteps: number): number | undefined {
  let unit = 1;
  for (const { b, h } of strata) {
    unit = lcm(lcm(unit, b), h);
    if (unit > EXACT_SUMS) return undefined;
  }
  let observed = 0;
  let size = 1;
  for (const st of strata) {
    const step = unit / st.h + unit / st.b;
    observed += st.headPassed * step - (st.cases * st.s * unit) / st.b;
    size += st.cases * (st.values.length - 1) * step;
    if (size > EXACT_SUMS) return undefined;
  }
  let law = new Float64Array(size);
  let next = new Float64Array(size);
  law[0] = 1;
  let length = 1;
  // The sum at index i is offset + i.
  let offset = 0;
  let steps = 0;
  for (const st of strata) {
    const step = unit / st.h + unit / st.b;
    const span = (st.values.length - 1) * step;
    for (let c = 0; c < st.cases; c++) {
      steps += length * st.values.length;
      if (steps > maxSteps) return undefined;
      next.fill(0, 0, length + span);
      for (let i = 0; i < length; i++) {
        const p = law[i]!;
        if (p === 0) continue;
        for (let k = 0; k < st.values.length; k++) next[i + k * step]! += p * st.probabilities[k]!;
      }
      [law, next] = [next, law];
      length += span;
      offset += st.low * step - (st.s * unit) / st.b;
    }
  }
  const far = Math.abs(observed);
  let extreme = 0;
  for (let i = 0; i < length; i++) if (Math.abs(offset + i) >= far) extreme += law[i]!;
  return Math.min(1, extreme);
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
const lcm = (a: number, b: number): number => (a / gcd(a, b)) * b;

/** Permutations drawn at random whose sum is at least `threshold` from zero. */
function drawnExtremes(
  strata: readonly Stratum[],
  threshold: number,
  resamples: number,
  seed: number,
): number {
  const random = createRandom(seed);
  let extreme = 0;
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (const { values, cumulative, cases } of strata) {
      for (let c = 0; c < cases; c++) {
        const u = random.float();
        let k = 0;
        while (cumulative[k]! <= u) k++;
        sum += values[k]!;
      }
    }
    if (Math.abs(sum) >= threshold) extreme++;
  }
  return extreme;
}

/** Per case: the complete scores of its trials in each run (at least one on both sides). */
export interface CaseScores {
  base: readonly (readonly number[])[];
  head: readonly (readonly number[])[];
}

/**
 * The same test for scores: under "nothing changed" a case's trial scores of both runs are
 * exchangeable, so which of them were the head run's is a random draw of h of the b + h. The
 * statistic is the sum of the cases' mean-score differences; its p is drawn (seeded, at least
 * 1,000 draws) or, past the budget or with fewer draws asked, the normal approximation with each
 * case's permutation variance. A case whose scores are all equal cannot move. With one trial per
 * case in both runs it is the sign-flip test over the score differences.
 */
export function scorePermutationTest(
  cases: CaseScores,
  options: TrialPermutationOptions = {},
): TrialPermutationTest {
  const moving: { pooled: Float64Array; h: number; b: number; total: number }[] = [];
  let observed = 0;
  let variance = 0;
  let drawsPerResample = 0;
  for (let i = 0; i < cases.base.length; i++) {
    const base = cases.base[i]!;
    const head = cases.head[i]!;
    const pooled = Float64Array.from([...head, ...base]);
    if (base.length === 0 || head.length === 0 || !varies(pooled)) continue;
    const h = head.length;
    const b = base.length;
    observed += mean(head) - mean(base);
    variance += permutationVariance(pooled, h, b);
    drawsPerResample += Math.min(h, b);
    moving.push({ pooled, h, b, total: pooled.reduce((sum, value) => sum + value, 0) });
  }
  const mixed = moving.length;
  const reach = extremes(moving.map(scoreEnds), mixed, options.alpha ?? 0.05);
  if (mixed === 0) return { pValue: 1, method: "exact", mixed: 0, resamples: 0, ...reach };
  const threshold = Math.abs(observed) - 1e-9 * 2 * mixed;
  const resamples = options.resamples ?? 10_000;
  if (resamples >= MIN_DRAWS && drawsPerResample * resamples <= (options.budget ?? 2e7)) {
    const random = createRandom(options.seed ?? 1);
    let extreme = 0;
    for (let r = 0; r < resamples; r++) {
      let sum = 0;
      for (const c of moving) sum += drawnDifference(c, random);
      if (Math.abs(sum) >= threshold) extreme++;
    }
    const pValue = (extreme + 1) / (resamples + 1);
    return { pValue, method: "monte-carlo", mixed, resamples, ...reach };
  }
  const z = Math.abs(observed) / Math.sqrt(variance);
  const pValue = Math.min(1, 2 * normalCdf(-z));
  return { pValue, method: "normal", mixed, resamples: 0, ...reach };
}

/**
 * A case's most extreme deals of its pooled scores: its h highest scores to the head run, or its
 * h lowest, each as likely as the number of h-sets of that sum (ties counted) over C(b + h, h).
 */
function scoreEnds({
  pooled,
  h,
  b,
  total,
}: {
  pooled: Float64Array;
  h: number;
  b: number;
  total: number;
}): Ends {
  const sorted = Float64Array.from(pooled).sort();
  const n = sorted.length;
  const difference = (headSum: number) => headSum / h - (total - headSum) / b;
  const sumOf = (from: number) => sorted.subarray(from, from + h).reduce((a, v) => a + v, 0);
  const all = logChoose(n, h);
  return {
    cases: 1,
    high: difference(sumOf(n - h)),
    low: difference(sumOf(0)),
    logHigh: logTiedDeals(sorted, n - h, h) - all,
    logLow: logTiedDeals(sorted, 0, h) - all,
  };
}

/**
 * ln of the number of h-sets of `sorted` with the same sum as sorted[from … from + h): those take
 * every value strictly inside the run and choose among the values equal to its edge values.
 */
function logTiedDeals(sorted: Float64Array, from: number, h: number): number {
  const n = sorted.length;
  // The edge of the set that borders values left out: its lowest (top set) or highest (bottom).
  const edge = from === 0 ? sorted[h - 1]! : sorted[from]!;
  const equal = (v: number) => Math.abs(v - edge) <= 1e-9;
  let tied = 0;
  for (let i = 0; i < n; i++) if (equal(sorted[i]!)) tied++;
  let chosen = 0;
  for (let i = from; i < from + h; i++) if (equal(sorted[i]!)) chosen++;
  return logChoose(tied, chosen);
}

const mean = (values: readonly number[]): number =>
  values.reduce((sum, value) => sum + value, 0) / values.length;

function varies(values: Float64Array): boolean {
  for (let i = 1; i < values.length; i++) if (Math.abs(values[i]! - values[0]!) > 1e-9) return true;
  return false;
}

/** Variance of mean(head) − mean(base) over the deals: N²σ² / (b·h·(N − 1)), σ² the pooled one. */
function permutationVariance(pooled: Float64Array, h: number, b: number): number {
  const n = pooled.length;
  let sum = 0;
  for (const value of pooled) sum += value;
  const centre = sum / n;
  let squares = 0;
  for (const value of pooled) squares += (value - centre) ** 2;
  return (n * n * (squares / n)) / (b * h * (n - 1));
}

/**
 * mean(head) − mean(base) for one random deal: the smaller side drawn by a partial shuffle of
 * `pooled` (which it reorders, harmlessly: every order is as good as another).
 */
function drawnDifference(
  { pooled, h, b, total }: { pooled: Float64Array; h: number; b: number; total: number },
  random: Random,
): number {
  const n = pooled.length;
  const k = Math.min(h, b);
  let drawn = 0;
  for (let i = 0; i < k; i++) {
    const j = i + random.int(n - i);
    const value = pooled[j]!;
    pooled[j] = pooled[i]!;
    pooled[i] = value;
    drawn += value;
  }
  const [head, base] = h <= b ? [drawn, total - drawn] : [total - drawn, drawn];
  return head / h - base / b;
}
