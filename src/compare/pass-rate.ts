import {
  addShareCase,
  emptyShareSums,
  passRateInterval,
  type ShareSums,
} from "../stats/clustered.js";
import { mcnemarExact } from "../stats/mcnemar.js";
import { pairedDifference } from "../stats/paired.js";
import {
  type CaseTrials,
  casesToReach,
  smallestTrialPermutationP,
  type TrialPermutationTest,
  trialPermutationTest,
} from "../stats/trial-permutation.js";
import { judgedShare, type Pair, passShare } from "./collect.js";
import {
  type StatsSettings,
  shownDifference,
  testDraws,
  tooFewToDetect,
  withinUnitDifference,
} from "./difference.js";
import type {
  ErroredCases,
  PassRateComparison,
  PassRateTest,
  TooFewToDetect,
  TrialRange,
} from "./types.js";

// The pass rate's comparison and the test its gate decides by. McNemar's test counts the cases
// whose pass share fell against those whose share rose; that is a fair coin under "nothing
// changed" only when every case has one judged trial in both runs. With 1 trial against 3, a
// case that passed its one base trial falls to 2/3 or below whenever one of its three head trials
// fails (1 − 0.7³ ≈ 66% at a 0.7 pass rate), while one that failed mostly rises: pure noise
// counts as hundreds of cases worse (298 against 159 over 600 cases, McNemar p = 8·10^-11). With
// trials, the gate decides by the permutation test of each case's trials between the runs
// (stats/trial-permutation.ts), which is McNemar's with one trial each and stays exact whatever
// the trial counts; the sign-flip test over the pass shares, used before, assumed each case's
// difference as likely negative as positive, which 1 trial against 10 at a 0.95 pass rate breaks
// (a third of pure-noise pairs of 20 cases were called a fall).

/** Judged trials of a case in a run: those that did not error. */
const judgedTrials = (agg: Pair["base"]): number => agg.trials - agg.errored;

/**
 * The pass rates over the pairs at `judged` (a trial that did not error in both runs): shares of
 * passing trials among those that did not error, since an error is no evidence either way, with
 * the test the gate decides by (`decidedBy`): McNemar's on the cases when each has one judged
 * trial in both runs, else the permutation test of each case's trials, or, when cases share
 * clusters, the sign-flip test on the clusters (cases of one cluster do not fail independently,
 * so counting them as independent would find significance where there is none).
 */
export function passRateDifference(
  pairs: readonly Pair[],
  judged: readonly number[],
  clusters: Int32Array | null,
  options: StatsSettings,
): PassRateComparison {
  const n = judged.length;
  const basePass = new Float64Array(n);
  const headPass = new Float64Array(n);
  const counts = caseTrials(n);
  const judgedClusters = new Int32Array(n);
  const sides = { base: emptyShareSums(), head: emptyShareSums() };
  const trials = { base: emptyRange(), head: emptyRange() };
  let worse = 0;
  let better = 0;
  judged.forEach((at, j) => {
    const { base, head } = pairs[at]!;
    basePass[j] = judgedShare(base)!;
    headPass[j] = judgedShare(head)!;
    if (headPass[j]! < basePass[j]!) worse++;
    else if (headPass[j]! > basePass[j]!) better++;
    if (clusters) judgedClusters[j] = clusters[at]!;
    setCase(
      counts,
      j,
      { passed: base.passed, trials: judgedTrials(base) },
      {
        passed: head.passed,
        trials: judgedTrials(head),
      },
    );
    addShareCase(sides.base, base.passed, judgedTrials(base));
    addShareCase(sides.head, head.passed, judgedTrials(head));
    widen(trials.base, judgedTrials(base));
    widen(trials.head, judgedTrials(head));
  });
  const decidedBy = passRateTest(clusters !== null, trials);
  const paired = withinUnitDifference(
    pairedDifference(basePass, headPass, {
      alpha: options.alpha,
      resamples: 0,
      // Its sign-flip test decides only over clusters: drawn only then.
      testResamples: decidedBy === "cluster-sign-flip" ? testDraws(options) : 0,
      seed: options.seed,
      ...(clusters ? { clusters: judgedClusters } : {}),
    }),
  );
  const test = mcnemarExact(worse, better);
  const permutation = decidedBy === "permutation" ? permutationOf(counts, options) : null;
  const unit = paired.clusters === null ? "case" : "cluster";
  const tooFew = permutation
    ? permutationTooFew(counts, trials, options.gateAlpha)
    : tooFewToDetect(paired.clusters ?? n, unit, options.gateAlpha);
  // The cases (or clusters) that could show a change: McNemar's discordant cases, the
  // permutation test's cases with passing and failing trials, the sign-flip's differing clusters.
  const fewChanged = permutation
    ? permutationFewChanged(permutation, options.gateAlpha)
    : tooFewToDetect(
        paired.clusters === null ? worse + better : paired.test.differing,
        unit,
        options.gateAlpha,
        true,
      );
  const pValue =
    decidedBy === "mcnemar" ? test.pValue : permutation ? permutation.pValue : paired.test.pValue;
  return {
    n,
    base: paired.meanBase,
    head: paired.meanHead,
    difference: paired.mean,
    baseInterval: sideInterval(sides.base),
    headInterval: sideInterval(sides.head),
    ...shownDifference(paired, tooFew, fewChanged, pValue),
    test,
    clusterTest: paired.clusters === null ? null : paired.test,
    permutationTest: permutation,
    decidedBy,
    pValue,
    judgedTrials: trials,
    tooFew,
    fewChanged,
  };
}

/**
 * The test a pass rate's gate decides by. McNemar's only when every case has one judged trial in
 * both runs, where it is exact and its count of cases that fell is a fair coin under "nothing
 * changed". Otherwise the permutation test of each case's trials between the runs, exact under
 * "each case's trials pass alike in both runs" whatever the trial counts: over seeded pairs of
 * pure noise it finds a fall in at most the one-sided half of alpha, at 0.7 or 0.95 pass rates,
 * with 1 trial against 3 or 10 (the sign-flip test over the pass shares found one in a third of
 * the pairs of 20 cases at 0.95 with 1 against 10). Over clusters, the sign-flip test over the
 * clusters.
 */
function passRateTest(
  clustered: boolean,
  trials: { base: TrialRange; head: TrialRange },
): PassRateTest {
  if (clustered) return "cluster-sign-flip";
  const one = (range: TrialRange) => range.min === 1 && range.max === 1;
  return one(trials.base) && one(trials.head) ? "mcnemar" : "permutation";
}

/** Passing and judged trials of n cases in each run, as the permutation test takes them. */
const caseTrials = (n: number): CaseTrials & Record<keyof CaseTrials, Int32Array> => ({
  basePassed: new Int32Array(n),
  baseTrials: new Int32Array(n),
  headPassed: new Int32Array(n),
  headTrials: new Int32Array(n),
});

type Counts = ReturnType<typeof caseTrials>;

function setCase(
  counts: Counts,
  j: number,
  base: { passed: number; trials: number },
  head: { passed: number; trials: number },
): void {
  counts.basePassed[j] = base.passed;
  counts.baseTrials[j] = base.trials;
  counts.headPassed[j] = head.passed;
  counts.headTrials[j] = head.trials;
}

const permutationOf = (counts: CaseTrials, options: StatsSettings): TrialPermutationTest =>
  trialPermutationTest(counts, {
    resamples: testDraws(options),
    seed: options.seed,
    alpha: options.gateAlpha,
  });

/**
 * Whether the permutation test can reach `alpha` with these cases whatever their results; the
 * cases needed counted at the fewest trials of each run.
 */
function permutationTooFew(
  counts: Counts,
  trials: { base: TrialRange; head: TrialRange },
  alpha: number,
): TooFewToDetect | null {
  const smallestP = smallestTrialPermutationP(counts.baseTrials, counts.headTrials);
  if (smallestP < alpha) return null;
  const units = counts.baseTrials.length;
  const needed = casesToReach(alpha, trials.base.min, trials.head.min);
  return { unit: "case", units, alpha, smallestP, needed: Math.max(needed, units + 1) };
}

/** Whether the cases whose trials can move (`mixed`) can reach `alpha`, dealt however. */
export function permutationFewChanged(
  test: TrialPermutationTest,
  alpha: number,
): TooFewToDetect | null {
  if (test.mixed === 0 || test.smallestP < alpha) return null;
  const needed = Math.max(test.needed, test.mixed + 1);
  return {
    unit: "case",
    units: test.mixed,
    alpha,
    smallestP: test.smallestP,
    needed,
    counts: "disagreeing",
  };
}

const emptyRange = (): TrialRange => ({ min: Number.POSITIVE_INFINITY, max: 0 });

function widen(range: TrialRange, trials: number): void {
  range.min = Math.min(range.min, trials);
  range.max = Math.max(range.max, trials);
}

/** A run's pass rate over the paired cases, as its own report gives one (see stats/clustered.ts). */
const sideInterval = (sums: ShareSums) => passRateInterval(sums.c, sums.n, sums.cases, sums);

/**
 * What cases every trial of which errored in a run may hide: the pass rate over every paired case
 * had their errored trials failed, tested as the pass rate is (McNemar's with one trial per case
 * in both runs, else the permutation test of each case's trials, or, when cases share clusters,
 * the sign-flip test over the clusters).
 */
export function erroredCases(
  pairs: readonly Pair[],
  cases: number,
  clusters: Int32Array | null,
  options: StatsSettings,
): ErroredCases {
  let worse = 0;
  let better = 0;
  let oneTrialEach = true;
  let sum = 0;
  const counts = caseTrials(pairs.length);
  const baseShares = new Float64Array(pairs.length);
  const headShares = new Float64Array(pairs.length);
  pairs.forEach((pair, j) => {
    baseShares[j] = passShare(pair.base);
    headShares[j] = passShare(pair.head);
    const difference = headShares[j]! - baseShares[j]!;
    sum += difference;
    if (difference < 0) worse++;
    else if (difference > 0) better++;
    if (pair.base.trials !== 1 || pair.head.trials !== 1) oneTrialEach = false;
    setCase(counts, j, pair.base, pair.head);
  });
  const asFailures = mcnemarExact(worse, better);
  const decidedBy: ErroredCases["decidedBy"] = clusters
    ? "cluster-sign-flip"
    : oneTrialEach
      ? "mcnemar"
      : "permutation";
  const pValue =
    decidedBy === "mcnemar"
      ? asFailures.pValue
      : decidedBy === "permutation"
        ? permutationOf(counts, options).pValue
        : clusterSignFlipP(baseShares, headShares, clusters!, options);
  return {
    cases,
    asFailures,
    decidedBy,
    pValue,
    difference: pairs.length > 0 ? sum / pairs.length : 0,
  };
}

/** The sign-flip test's p of the pass shares over the clusters, as the pass rate's gate has it. */
const clusterSignFlipP = (
  base: Float64Array,
  head: Float64Array,
  clusters: Int32Array,
  options: StatsSettings,
): number =>
  pairedDifference(base, head, {
    alpha: options.alpha,
    resamples: 0,
    testResamples: testDraws(options),
    seed: options.seed,
    clusters,
  }).test.pValue;
