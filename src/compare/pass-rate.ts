import {
  addShareCase,
  emptyShareSums,
  passRateInterval,
  type ShareSums,
} from "../stats/clustered.js";
import { mcnemarExact } from "../stats/mcnemar.js";
import { pairedDifference } from "../stats/paired.js";
import { judgedShare, type Pair, passShare } from "./collect.js";
import {
  type StatsSettings,
  shownDifference,
  testDraws,
  tooFewToDetect,
  withinUnitDifference,
} from "./difference.js";
import type { ErroredCases, PassRateComparison, PassRateTest, TrialRange } from "./types.js";

// The pass rate's comparison and the test its gate decides by. McNemar's test counts the cases
// whose pass share fell against those whose share rose; that is a fair coin under "nothing
// changed" only when every case has one judged trial in both runs. With 1 trial against 3, a
// case that passed its one base trial falls to 2/3 or below whenever one of its three head trials
// fails (1 − 0.7³ ≈ 66% at a 0.7 pass rate), while one that failed mostly rises: pure noise
// counts as hundreds of cases worse (298 against 159 over 600 cases, McNemar p = 8·10^-11 for a
// fall of 2.8 points the sign-flip test puts at p = 0.2). With trials, the gate decides by the
// paired sign-flip test over the cases' pass shares instead, which weighs how far each case moved:
// its expected difference is 0 whatever the trial counts, and its permutation variance is that of
// the differences (see passRateDecision).

/** Judged trials of a case in a run: those that did not error. */
const judgedTrials = (agg: Pair["base"]): number => agg.trials - agg.errored;

/**
 * The pass rates over the pairs at `judged` (a trial that did not error in both runs): shares of
 * passing trials among those that did not error, since an error is no evidence either way, with
 * the test the gate decides by (`decidedBy`): McNemar's on the cases when each has one judged
 * trial in both runs, else the sign-flip test on the cases' pass shares, or, when cases share
 * clusters, on the clusters (cases of one cluster do not fail independently, so counting them as
 * independent would find significance where there is none).
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
      // Its sign-flip test decides unless McNemar's does: drawn only then.
      testResamples: decidedBy === "mcnemar" ? 0 : testDraws(options),
      seed: options.seed,
      ...(clusters ? { clusters: judgedClusters } : {}),
    }),
  );
  const test = mcnemarExact(worse, better);
  const unit = paired.clusters === null ? "case" : "cluster";
  const tooFew = tooFewToDetect(paired.clusters ?? n, unit, options.gateAlpha);
  // The cases (or clusters) whose share moved: McNemar's discordant cases, the sign-flip's
  // differing units (the same cases, without clusters).
  const changed = paired.clusters === null ? worse + better : paired.test.differing;
  const fewChanged = tooFewToDetect(changed, unit, options.gateAlpha, true);
  return {
    n,
    base: paired.meanBase,
    head: paired.meanHead,
    difference: paired.mean,
    baseInterval: sideInterval(sides.base),
    headInterval: sideInterval(sides.head),
    ...shownDifference(paired, tooFew, fewChanged),
    test,
    clusterTest: paired.clusters === null ? null : paired.test,
    decidedBy,
    pValue: decidedBy === "mcnemar" ? test.pValue : paired.test.pValue,
    judgedTrials: trials,
    tooFew,
    fewChanged,
  };
}

/**
 * The test a pass rate's gate decides by. McNemar's only when every case has one judged trial in
 * both runs, where it is exact and its count of cases that fell is a fair coin under "nothing
 * changed". Otherwise the sign-flip test over the cases' pass shares: a case's share difference
 * has mean 0 under "nothing changed" whatever its trial counts, and the test's variance is that
 * of the differences, so its false alarms stay near alpha as cases grow: over 1,000 seeded pairs
 * of pure noise of 600 cases at a 0.7 pass rate, it finds a fall in 2.0% of them with 1 trial
 * against 3 and 2.3% with 3 against 5, the one-sided half of alpha = 0.05 (McNemar's: 99.8% and
 * 29.6%). Its exactness needs differences symmetric about 0, which unequal trial counts do not
 * give: where every case's pass share is near 0 or 1 it finds more (3.9% at 0.95 for every case),
 * and with a few dozen such cases and very unequal trials (1 against 10) far more, as the mean
 * score's test does.
 */
function passRateTest(
  clustered: boolean,
  trials: { base: TrialRange; head: TrialRange },
): PassRateTest {
  if (clustered) return "cluster-sign-flip";
  const one = (range: TrialRange) => range.min === 1 && range.max === 1;
  return one(trials.base) && one(trials.head) ? "mcnemar" : "sign-flip";
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
 * in both runs, else the sign-flip test over the cases' pass shares).
 */
export function erroredCases(
  pairs: readonly Pair[],
  cases: number,
  options: StatsSettings,
): ErroredCases {
  let worse = 0;
  let better = 0;
  let oneTrialEach = true;
  let sum = 0;
  for (const pair of pairs) {
    const difference = passShare(pair.head) - passShare(pair.base);
    sum += difference;
    if (difference < 0) worse++;
    else if (difference > 0) better++;
    if (pair.base.trials !== 1 || pair.head.trials !== 1) oneTrialEach = false;
  }
  const asFailures = mcnemarExact(worse, better);
  const pValue = oneTrialEach
    ? asFailures.pValue
    : pairedDifference(
        pairs.map((pair) => passShare(pair.base)),
        pairs.map((pair) => passShare(pair.head)),
        {
          alpha: options.alpha,
          resamples: 0,
          testResamples: testDraws(options),
          seed: options.seed,
        },
      ).test.pValue;
  return {
    cases,
    asFailures,
    decidedBy: oneTrialEach ? "mcnemar" : "sign-flip",
    pValue,
    difference: pairs.length > 0 ? sum / pairs.length : 0,
  };
}
