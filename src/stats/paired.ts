import { bootstrapRatios, quantileSorted, type ResamplingMode } from "./bootstrap.js";
import type { Interval } from "./interval.js";
import { zForLevel } from "./normal.js";
import { type SignFlipTest, signFlipTest } from "./sign-flip.js";
import { hasSpread, NEGLIGIBLE_SPREAD } from "./spread.js";

/** Options of {@link pairedDifference}. */
export interface PairedOptions {
  /** Two-sided significance level; the interval's level is 1 − alpha (default 0.05). */
  alpha?: number;
  /** Power at which the minimum detectable effect is given (default 0.8). */
  power?: number;
  /** Bootstrap resamples (default 10,000); 0 gives the CLT interval only. */
  resamples?: number;
  /**
   * Random sign patterns of the sign-flip test past 16 differing units (default `resamples`, or
   * 10,000 when that is 0): enough that its p can fall below the alpha it is judged at.
   */
  testResamples?: number;
  /** Seed of the resampling PRNG (default 1): the same seed gives the same interval. */
  seed?: number;
  /**
   * Most unit draws a direct bootstrap may make (units × resamples, default 2·10^7, about
   * 0.1 s); beyond it, and when the units are too varied for multinomial counts, the interval
   * is the CLT one, which at that many units is what the bootstrap would give.
   */
  budget?: number;
}

/** How the interval was obtained. */
export type PairedMethod = "paired-bootstrap" | "cluster-bootstrap" | "clt" | "cluster-clt";

/** The paired difference head − base of one score over the same cases. */
export interface PairedDifference {
  /** Pairs compared. */
  n: number;
  /** Clusters the pairs fall in, when clustered (a case without a cluster is its own). */
  clusters: number | null;
  meanBase: number;
  meanHead: number;
  /** Mean of head − base. */
  mean: number;
  /** Sample sd of the per-pair differences; null below two pairs. */
  sd: number | null;
  /** Standard error of `mean`: sd/√n, or the cluster-robust one when clustered. */
  se: number | null;
  /** Interval of `mean` at level 1 − alpha; null below two units, or with `equalDifferences`. */
  interval: Interval | null;
  method: PairedMethod;
  /** Bootstrap resamples behind the interval (0 for the CLT), and how they were drawn. */
  resamples: number;
  resampling: ResamplingMode | null;
  seed: number;
  /** Pearson correlation of base and head; null when either is constant (up to rounding). */
  correlation: number | null;
  /**
   * Every unit's difference (a pair's, or a cluster's mean) is the same but for rounding, over
   * two units or more: `interval` and `mde` are then null, since their zero width would claim a
   * certainty that a few equal differences do not give (three cases that all fell by 1 say
   * nothing of how far a fourth would fall).
   */
  equalDifferences: boolean;
  /**
   * Minimum detectable effect: (z_{1−α/2} + z_{power}) · se, the smallest true mean difference
   * a two-sided test at alpha finds with the given power at this n (and clustering); with
   * independent pairs that is (z_{1−α/2} + z_{power}) · sd/√n. Null with `equalDifferences`.
   */
  mde: number | null;
  power: number;
  /**
   * The paired sign-flip test of "no difference" over the same units as the interval (pairs, or
   * clusters): what a regression gate decides on, since it is valid at any n.
   */
  test: SignFlipTest;
}

/**
 * Mean, standard error, interval, correlation and minimum detectable effect of the paired
 * differences head[i] − base[i]. `clusters[i]` (0-based cluster numbers) makes the standard
 * error cluster-robust and the bootstrap resample whole clusters.
 * @example
 * pairedDifference([0.5, 0.7, 0.9], [0.6, 0.9, 0.9]).mean; // 0.1
 */
export function pairedDifference(
  base: ArrayLike<number>,
  head: ArrayLike<number>,
  options: PairedOptions & { clusters?: ArrayLike<number> } = {},
): PairedDifference {
  const n = base.length;
  if (head.length !== n) {
    throw new RangeError(
      `pairedDifference needs as many head values as base (${head.length} ≠ ${n})`,
    );
  }
  const alpha = options.alpha ?? 0.05;
  const power = options.power ?? 0.8;
  const resamples = options.resamples ?? 10_000;
  const seed = options.seed ?? 1;
  const clusters = options.clusters;
  if (clusters && clusters.length !== n) {
    throw new RangeError(`pairedDifference needs one cluster per pair (${clusters.length} ≠ ${n})`);
  }

  const { meanBase, meanHead, sd, correlation } = moments(base, head);
  // Equal means but for the order they were summed in (0.1 + 0.2 + 0.3 against 0.3 + 0.2 + 0.1)
  // are equal.
  const mean = roundedAway(meanHead - meanBase, Math.max(Math.abs(meanBase), Math.abs(meanHead)));
  const { unitSums, unitSizes } = resamplingUnits(base, head, clusters);
  const units = unitSums.length;
  const se = clusters
    ? clusterSe(unitSums, unitSizes, mean, n)
    : sd === null
      ? null
      : sd / Math.sqrt(n);

  const equalDifferences = units > 1 && !unitsVary(unitSums, unitSizes, mean);
  const level = 1 - alpha;
  const z = zForLevel(level);
  // Equal differences have an SE of 0 (or of rounding): their interval and MDE would be points.
  const intervalSe = equalDifferences ? null : se;
  const mde = intervalSe === null ? null : (z + zForLevel(2 * power - 1)) * intervalSe;
  const result: PairedDifference = {
    n,
    clusters: clusters ? units : null,
    meanBase,
    meanHead,
    mean,
    sd,
    se,
    interval:
      intervalSe === null
        ? null
        : { low: mean - z * intervalSe, high: mean + z * intervalSe, level, method: "clt" },
    method: clusters ? "cluster-clt" : "clt",
    resamples: 0,
    resampling: null,
    seed,
    correlation,
    equalDifferences,
    mde,
    power,
    test: signFlipTest(unitSums, {
      resamples: options.testResamples ?? (resamples || 10_000),
      seed,
      budget: options.budget ?? 2e7,
    }),
  };
  if (resamples > 0 && units > 1 && !equalDifferences) {
    const drawn = bootstrapRatios(unitSums, unitSizes, {
      resamples,
      seed,
      budget: options.budget ?? 2e7,
    });
    if (drawn) {
      result.interval = {
        low: quantileSorted(drawn.replicates, alpha / 2),
        high: quantileSorted(drawn.replicates, 1 - alpha / 2),
        level,
        method: "bootstrap",
      };
      result.method = clusters ? "cluster-bootstrap" : "paired-bootstrap";
      result.resamples = resamples;
      result.resampling = drawn.mode;
    }
  }
  return result;
}

/**
 * Means of base and head, the standard deviation of the differences and the correlation, in two
 * passes: means first, then centred sums (stable for scores near each other).
 */
function moments(base: ArrayLike<number>, head: ArrayLike<number>) {
  const n = base.length;
  let sumBase = 0;
  let sumHead = 0;
  let largestBase = 0;
  let largestHead = 0;
  for (let i = 0; i < n; i++) {
    sumBase += base[i]!;
    sumHead += head[i]!;
    largestBase = Math.max(largestBase, Math.abs(base[i]!));
    largestHead = Math.max(largestHead, Math.abs(head[i]!));
  }
  const meanBase = n > 0 ? sumBase / n : Number.NaN;
  const meanHead = n > 0 ? sumHead / n : Number.NaN;
  let sbb = 0;
  let shh = 0;
  let sbh = 0;
  let sdd = 0;
  for (let i = 0; i < n; i++) {
    const b = base[i]! - meanBase;
    const h = head[i]! - meanHead;
    sbb += b * b;
    shh += h * h;
    sbh += b * h;
    sdd += (h - b) * (h - b);
  }
  return {
    meanBase,
    meanHead,
    sd: n > 1 ? Math.sqrt(sdd / (n - 1)) : null,
    // Two pairs always correlate ±1: no correlation below three.
    correlation:
      n > 2 &&
      hasSpread(Math.sqrt(sbb / n), largestBase) &&
      hasSpread(Math.sqrt(shh / n), largestHead)
        ? sbh / Math.sqrt(sbb * shh)
        : null,
  };
}

/** Whether the units' mean differences vary around `mean` beyond rounding. */
function unitsVary(unitSums: Float64Array, unitSizes: Float64Array, mean: number): boolean {
  let squares = 0;
  let largest = 0;
  for (let g = 0; g < unitSums.length; g++) {
    const difference = unitSums[g]! / unitSizes[g]!;
    squares += (difference - mean) ** 2;
    largest = Math.max(largest, Math.abs(difference));
  }
  return hasSpread(Math.sqrt(squares / unitSums.length), largest);
}

/** `difference` of values of size `size`, or 0 when it is within their rounding (NEGLIGIBLE_SPREAD). */
const roundedAway = (difference: number, size: number): number =>
  Math.abs(difference) <= NEGLIGIBLE_SPREAD * size ? 0 : difference;

/**
 * Units of resampling: one per pair, or one per cluster that has pairs (sum of differences,
 * size). A unit whose difference is rounding (a case mean of 0.1, 0.2, 0.3 against one of 0.3,
 * 0.2, 0.1) is 0: it did not change, for the test as for the interval.
 */
function resamplingUnits(
  base: ArrayLike<number>,
  head: ArrayLike<number>,
  clusters: ArrayLike<number> | undefined,
): { unitSums: Float64Array; unitSizes: Float64Array } {
  const n = base.length;
  if (!clusters) {
    const unitSums = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      unitSums[i] = roundedAway(
        head[i]! - base[i]!,
        Math.max(Math.abs(head[i]!), Math.abs(base[i]!)),
      );
    }
    return { unitSums, unitSizes: new Float64Array(n).fill(1) };
  }
  let count = 0;
  for (let i = 0; i < n; i++) count = Math.max(count, clusters[i]! + 1);
  const unitSums = new Float64Array(count);
  const unitSizes = new Float64Array(count);
  const magnitudes = new Float64Array(count);
  for (let i = 0; i < n; i++) {
    unitSums[clusters[i]!]! += head[i]! - base[i]!;
    unitSizes[clusters[i]!]!++;
    magnitudes[clusters[i]!]! += Math.max(Math.abs(head[i]!), Math.abs(base[i]!));
  }
  for (let g = 0; g < count; g++) unitSums[g] = roundedAway(unitSums[g]!, magnitudes[g]!);
  const used = unitSizes.reduce((total, size) => total + (size > 0 ? 1 : 0), 0);
  if (used === count) return { unitSums, unitSizes };
  return {
    unitSums: unitSums.filter((_, g) => unitSizes[g]! > 0),
    unitSizes: unitSizes.filter((size) => size > 0),
  };
}

/** Cluster-robust (Liang–Zeger) standard error of a mean, with the G/(G−1) small-sample factor. */
function clusterSe(
  unitSums: Float64Array,
  unitSizes: Float64Array,
  mean: number,
  n: number,
): number | null {
  const units = unitSums.length;
  if (units <= 1) return null;
  let sum = 0;
  for (let g = 0; g < units; g++) sum += (unitSums[g]! - unitSizes[g]! * mean) ** 2;
  return Math.sqrt((units / (units - 1)) * sum) / n;
}
