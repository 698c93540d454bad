import type { JudgmentState } from "../eval/record.js";
import type { Interval } from "../stats/interval.js";
import type { McNemarResult } from "../stats/mcnemar.js";
import type { PairedDifference } from "../stats/paired.js";
import type { SignFlipTest } from "../stats/sign-flip.js";
import type { TrialPermutationTest } from "../stats/trial-permutation.js";
import type { RunStatus } from "../store/types.js";

/** Which run of a comparison. */
export type Side = "base" | "head";

/**
 * How a case changed between the runs; exclusive, became-errored first. `pass-to-fail`: it passed
 * every trial and now passes none (with one trial each, passed then failed); `fail-to-pass` the
 * reverse. A case's share counts an errored trial as not passing, so errors that grew show as a
 * falling share; but a base trial that errored is no evidence against the case: 2 passed and 1
 * errored, then 3 failed, is `pass-to-fail` and a new failure. With trials, a share of passing trials that moved otherwise (3/5 → 0/5, 0/5 → 2/2)
 * is `pass-rate-down` or `pass-rate-up`. `became-errored`: every head trial errored, and not
 * every base trial had. `score-down` and `score-up`: its share of passing trials held but its
 * mean complete score moved (a score eval whose check worth 5 of 10 points flipped while its
 * gates held).
 */
export type ChangeKind =
  | "pass-to-fail"
  | "became-errored"
  | "fail-to-pass"
  | "pass-rate-down"
  | "pass-rate-up"
  | "score-down"
  | "score-up";

/** One judgment as it stood in one run's representative trial. */
export interface JudgmentSide {
  state: JudgmentState;
  reason: string;
  /** For a judgment that carries points: what it earned of them (null: no evidence). */
  earned?: number | null;
  points?: number;
}

/** A judgment whose state differs between the runs (matched by source, label and occurrence). */
export interface JudgmentChange {
  label: string;
  source: string;
  gate: boolean;
  /** null when the judgment is absent in that run. */
  base: JudgmentSide | null;
  head: JudgmentSide | null;
}

/** Pass share and mean complete score of one case in one run. */
export interface CaseSide {
  /** Trials that were not skipped. */
  trials: number;
  passed: number;
  errored: number;
  /** Mean of the complete trial scores; null when no trial's score was complete. */
  score: number | null;
}

/** A case whose pass share changed, with what changed. */
export interface CaseChange {
  evalId: string;
  caseId: string;
  kind: ChangeKind;
  /**
   * True for pass-to-fail, pass-rate-down, score-down, and became-errored when the case passed
   * some trial before.
   */
  regression: boolean;
  base: CaseSide;
  head: CaseSide;
  /**
   * Judgments that changed between a representative trial of each run: for a regression the
   * first passing base trial and the first non-passing head trial (the reverse for an improvement).
   */
  judgments: JudgmentChange[];
  /** The representative trials (numbered from 0) whose judgments are compared, on each side that has one. */
  trials: { base?: number; head?: number };
  /** The head error (where: message), when the head trial crashed. */
  error?: string;
}

/** How many cases moved, by kind; added and removed are matched by case id, never by position. */
export interface Transitions {
  passToFail: number;
  failToPass: number;
  becameErrored: number;
  /** With trials: cases whose share of passing trials fell, short of pass-to-fail. */
  passRateDown: number;
  /** With trials: cases whose share of passing trials rose, short of fail-to-pass. */
  passRateUp: number;
  /** Cases whose share of passing trials held and whose mean complete score fell. */
  scoreDown: number;
  /** Cases whose share of passing trials held and whose mean complete score rose. */
  scoreUp: number;
  added: number;
  removed: number;
  unchanged: number;
}

/** An attempt left out of the score comparison because its score was not complete. */
export interface LeftOutAttempt {
  run: Side;
  evalId: string;
  caseId: string;
  trial: number;
  /** How many trials its eval ran in that run: a line names the trial only when it ran several. */
  trials: number;
  state: "partial" | "unavailable";
}

/** What was not compared, and why. */
export interface LeftOut {
  /** Attempts whose score was partial (a lower bound), never compared as complete. */
  partialAttempts: number;
  /** Attempts whose score was unavailable. */
  unavailableAttempts: number;
  /** Paired cases with no complete score in one run or both: in the pass rate, not the score. */
  unscoredCases: number;
  /** Cases every trial of which was skipped in one run or both. */
  skippedCases: number;
  /** The left-out attempts by name, the first ones (see `truncated`). */
  attempts: LeftOutAttempt[];
  truncated: boolean;
}

/**
 * Pass rates of the paired cases (pass = share of passing trials among those that did not error;
 * a case every trial of which errored in a run is left out: `ComparisonStats.errored`).
 */
export interface PassRateComparison {
  /** Paired cases with a trial that did not error in both runs. */
  n: number;
  base: number;
  head: number;
  /** head − base. */
  difference: number;
  /**
   * Each run's rate's interval over the paired cases, as its own report gives one (95%; Wilson's,
   * with trials over the cases' effective number: stats/clustered.ts).
   */
  baseInterval: Interval | null;
  headInterval: Interval | null;
  /** Paired difference of the pass shares (CLT, cluster-robust when clustered). */
  paired: PairedDifference;
  /** Why `paired.interval` is null, when it is for one of these reasons. */
  noInterval: NoInterval | null;
  /** The interval not shown for `test-disagrees`, for whoever wants it; else null. */
  intervalSetAside: Interval | null;
  /**
   * Exact McNemar test: `worse` cases fell, `better` rose (with trials, cases whose pass share
   * fell or rose). The gate decides by it only when every paired case has one judged trial in
   * both runs (`decidedBy`: `mcnemar`); with trials its p is no test of the pass rate (base 1
   * trial against head 3, a case that passed its one trial falls to 2/3 most of the time: pure
   * noise counts as hundreds of cases worse), and the counts are only counts.
   */
  test: McNemarResult;
  /**
   * When cases share clusters: the sign-flip test of the pass shares over the clusters, which the
   * gate decides by instead of `test` (the cases of one cluster do not pass or fail independently).
   */
  clusterTest: SignFlipTest | null;
  /**
   * When cases ran trials and share no clusters: the permutation test of each case's trials
   * between the runs, which the gate decides by (`decidedBy`: `permutation`).
   */
  permutationTest: TrialPermutationTest | null;
  /** The test the gate decides the pass rate by, and `pValue` is the p of. */
  decidedBy: PassRateTest;
  /** The two-sided p of the test the gate decides by (`decidedBy`). */
  pValue: number;
  /**
   * The fewest and most judged trials (trials that did not error) of a paired case in each run:
   * McNemar's test decides only when all are 1.
   */
  judgedTrials: { base: TrialRange; head: TrialRange };
  /**
   * Set when the gate's test can never reach the gate's alpha with n cases (or clusters); `paired.interval` and
   * `paired.mde` are then null.
   */
  tooFew: TooFewToDetect | null;
  /**
   * Set when fewer cases changed (`worse` + `better`) than `test` needs to reach the gate's
   * alpha: `paired.interval` is then null (the MDE, which counts every case, stays).
   */
  fewChanged: TooFewToDetect | null;
}

/**
 * The test a pass rate's gate decides by. `mcnemar`: McNemar's exact test on the cases that went
 * from pass to fail and back (`test`), when every paired case has one judged trial in both runs.
 * `permutation`: with trials, the permutation test of each case's trials between the runs
 * (`permutationTest`): given how many of a case's trials passed in both runs together, which were
 * the head run's is a random draw under "nothing changed", whatever the trial counts, where
 * counting the cases that fell is biased (McNemar's test is this one with one trial each).
 * `cluster-sign-flip`: when cases share clusters, the sign-flip test over the clusters
 * (`clusterTest`).
 */
export type PassRateTest = "mcnemar" | "permutation" | "cluster-sign-flip";

/** The fewest and most trials of a case in one run. */
export interface TrialRange {
  min: number;
  max: number;
}

/** The paired difference of mean scores, decided by its sign-flip test (`test`). */
export interface ScoreComparison extends PairedDifference {
  /**
   * The test the gate decides the mean score by: `sign-flip` (`test`, over the cases' or the
   * clusters' mean scores) when every case ran as many scored trials in both runs, else
   * `permutation` (`permutationTest`: each case's trial scores dealt at random between the runs),
   * since unequal trials make the differences lean one way under "nothing changed".
   */
  decidedBy: "sign-flip" | "permutation";
  /** The permutation test of each case's trial scores, when it decides. */
  permutationTest: TrialPermutationTest | null;
  /** The two-sided p of the test the gate decides by. */
  pValue: number;
  /**
   * Set when `test` can never reach the gate's alpha with these units; `interval` and `mde` are
   * then null.
   */
  tooFew: TooFewToDetect | null;
  /**
   * Set when fewer units differ than `test` needs to reach the gate's alpha (it drops the units
   * whose difference is 0): `interval` is then null (the MDE, which counts every unit, stays).
   */
  fewChanged: TooFewToDetect | null;
  /** Why `interval` is null, when it is for one of these reasons. */
  noInterval: NoInterval | null;
  /** The interval not shown for `test-disagrees`, for whoever wants it; else null. */
  intervalSetAside: Interval | null;
}

/**
 * Why a paired difference shows no interval. `too-few`: the exact test the gate decides by cannot
 * reach its alpha with these units (`tooFew`), so an interval that excludes 0 would seem to find
 * what the gate cannot; `few-changed`: it cannot with the units that changed (`fewChanged`: 5 of
 * 20 cases), for the same reason; `equal-differences`: every unit's difference is the same
 * (`equalDifferences`), so the interval would have zero width; `test-disagrees`: the interval
 * excludes 0 while the test the gate decides by does not find a difference at the interval's own
 * alpha (a bootstrap over seven changed cases can exclude 0 where the exact test gives p = 0.125),
 * so it would claim what the cases do not show (it is kept in `intervalSetAside`). The first that
 * holds wins.
 */
export type NoInterval = "too-few" | "few-changed" | "equal-differences" | "test-disagrees";

/**
 * Why a figure has no minimum detectable effect: the exact test the gate decides it by cannot
 * give p below the gate's alpha with this many units, whatever the results, so no effect is
 * detectable however large.
 */
export interface TooFewToDetect {
  /** What the test counts: paired cases, or clusters of them (the mean score, when clustered). */
  unit: "case" | "cluster";
  units: number;
  /** The alpha the gate judges the figure at: over the number of evals for one of several. */
  alpha: number;
  /**
   * The test's smallest two-sided p with these units: 2/2^units for McNemar's and the sign-flip
   * test; for the permutation test of trials, that of the cases' trial counts (`tooFew`) or of
   * their passes (`fewChanged`).
   */
  smallestP: number;
  /** Fewest units with which it could fall below alpha. */
  needed: number;
  /**
   * What `units` counts in a `fewChanged`: cases that changed (McNemar's discordant cases, the
   * sign-flip test's differing units), or, with the permutation test of trials, `"disagreeing"`:
   * the cases whose trials disagree (passing and failing, or scores that differ), the only ones
   * its draws can move, whether or not they changed between the runs.
   */
  counts?: "changed" | "disagreeing" | undefined;
}

/** Statistics of a set of paired cases: one eval, or all of them. */
export interface ComparisonStats {
  /** Cases present, and not wholly skipped, in both runs. */
  pairs: number;
  transitions: Transitions;
  /** Cases that passed every trial in base and pass no trial in head. */
  newFailures: number;
  passRate: PassRateComparison | null;
  /**
   * Paired cases every trial of which errored in a run or both, left out of the pass rate; with
   * the test of the pass rate had their errored trials failed, which says whether the errors may
   * hide a regression. Null when there is none.
   */
  errored: ErroredCases | null;
  /** Paired difference of mean complete scores; null without a scored pair. */
  meanScore: ScoreComparison | null;
  leftOut: LeftOut;
}

/** Paired cases every trial of which errored in a run, and what they may hide. */
export interface ErroredCases {
  cases: number;
  /**
   * McNemar's test of the pass rate over every paired case had the errored trials failed: its
   * counts, and its p, which decides only with one trial per case in both runs (`decidedBy`).
   */
  asFailures: McNemarResult;
  /**
   * `mcnemar` when every paired case ran one trial in both runs, else `permutation`: the
   * permutation test of each case's trials, errored trials counted as failures; when cases share
   * clusters, `cluster-sign-flip`: the sign-flip test of the pass shares over the clusters.
   */
  decidedBy: PassRateTest;
  /** The p of that test. */
  pValue: number;
  /** head − base of the mean pass share with errored trials counted as failures. */
  difference: number;
}

/** One eval in both runs. */
export interface EvalComparison extends ComparisonStats {
  evalId: string;
  /** Changed cases, regressions first, then improvements, each in case order (first ones). */
  changes: CaseChange[];
  changesTruncated: boolean;
  /** Case ids only in head / only in base, and the new failures (first ones). */
  addedCases: string[];
  removedCases: string[];
  newFailureCases: string[];
  /** Whether this eval's pass rate or mean score fell significantly (Bonferroni over evals). */
  regressed: { passRate: boolean; meanScore: boolean };
}

/** Why two evals may not be comparable. */
export interface ComparabilityWarning {
  /**
   * The eval it is about; absent when it is about whole runs (`unfinished`, `same-run`, `shard`,
   * `resumed-with-changes`).
   */
  evalId?: string;
  /**
   * What differs. `unfinished`: a run that did not finish (crashed, interrupted, still running),
   * whose cases it never ran count as removed (or added), not as changes; `base`/`head` then give
   * each run's status. `same-run`: base and head are one run (`base`/`head`: its id), so nothing
   * can have changed. `shard`: the runs hold different shards, or one a shard and the other the
   * whole run (`base`/`head`: `i/n` or `whole`), so cases of one shard only count as removed or
   * added. `unread`: the base run could not read the eval's dataset whole (its `(cases)`
   * attempt), so the cases it did not read count as added (`base`: `unread`, `head`: `read`; the
   * head's own is a finding of the decision, `dataset`). `resumed-with-changes`: a run was
   * resumed with --force after its evals changed (its manifest's `resumedWithChanges`), so it
   * holds attempts of two versions of the evals in `evals`; `base`/`head` give what changed in
   * each run ("none" for a run resumed without changes).
   */
  kind:
    | "config"
    | "dataset"
    | "judge-models"
    | "trials"
    | "unfinished"
    | "same-run"
    | "shard"
    | "unread"
    | "resumed-with-changes";
  /** With `resumed-with-changes`: the evals whose change the resume went through. */
  evals?: string[];
  base: string;
  head: string;
  message: string;
}

/** The verdict a CI gate reads. */
export interface RegressionDecision {
  regression: boolean;
  alpha: number;
  /** Pooled pass rate fell with its test's p < alpha (`PassRateComparison.decidedBy`). */
  passRate: boolean;
  /** Pooled mean score fell with sign-flip p < alpha. */
  meanScore: boolean;
  /**
   * Evals that regressed on their own, at alpha / (number of evals); with one eval, that eval
   * when the run's pass rate or mean score regressed.
   */
  evals: string[];
  newFailures: number;
  failOnNewFailures: boolean;
  /** One sentence per reason, empty when there is no regression. */
  reasons: string[];
  /**
   * What each of `reasons` is about, in the same order and without figures, so the same finding
   * has the same name from run to run: `pass rate`, `mean score`, `eval "<id>"`, `new failures`,
   * `dataset` (the head run could not read an eval's dataset whole).
   */
  checks: string[];
}

/** A run as the comparison names it. */
export interface RunRef {
  runId: string;
  name?: string;
  status: RunStatus;
  startedAt: string;
  git?: { commit: string; branch?: string | undefined; dirty: boolean };
}

/** Two stored runs compared: plain data, for the console, Markdown or JSON. */
export interface Comparison {
  base: RunRef;
  head: RunRef;
  alpha: number;
  seed: number;
  resamples: number;
  decision: RegressionDecision;
  /** Every paired case of every eval (clusters are per eval). */
  overall: ComparisonStats;
  evals: EvalComparison[];
  /** Evals only in head, only in base. */
  addedEvals: string[];
  removedEvals: string[];
  warnings: ComparabilityWarning[];
}
