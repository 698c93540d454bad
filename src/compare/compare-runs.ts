import { resumeCommand } from "../cli/command-words.js";
import { NiceevalError } from "../errors.js";
import type { AttemptRecord } from "../eval/record.js";
import { givenText } from "../eval/timeout.js";
import { modelList } from "../judge/judge-models.js";
import { type KnownKeys, unknownKeysIn } from "../known-keys.js";
import { plural } from "../plural.js";
import type { UnreadCases } from "../runner/events.js";
import { loadTroubles } from "../runner/load-troubles.js";
import { formatShard } from "../shard/shard.js";
import { pairedDifference } from "../stats/paired.js";
import {
  casesToReach,
  scorePermutationTest,
  smallestTrialPermutationP,
  type TrialPermutationTest,
} from "../stats/trial-permutation.js";
import { importedRunAdvice } from "../store/imported.js";
import { resolveRunRef } from "../store/resolve.js";
import type { Store, StoredRun } from "../store/types.js";
import { effectiveStatus } from "../store/writer.js";
import {
  type CaseAgg,
  caseSide,
  classify,
  collectRun,
  emptyLeftOut,
  isNewFailure,
  isRegression,
  judgedShare,
  meanScore,
  NAMED_LEFT_OUT,
  type Pair,
} from "./collect.js";
import {
  type StatsSettings,
  shownDifference,
  testDraws,
  tooFewToDetect,
  withinUnitDifference,
} from "./difference.js";
import {
  diffJudgments,
  kept,
  type Representative,
  representative,
  sameTrialPair,
  scoreRepresentative,
} from "./judgments.js";
import { changedCases, erroredTestName, passRateTestName, pText, scoreTestName } from "./notes.js";
import { erroredCases, passRateDifference, permutationFewChanged } from "./pass-rate.js";
import { resumedWarnings } from "./resumed.js";
import type {
  CaseChange,
  ChangeKind,
  ComparabilityWarning,
  Comparison,
  ComparisonStats,
  EvalComparison,
  LeftOut,
  PassRateComparison,
  RegressionDecision,
  RunRef,
  ScoreComparison,
  TooFewToDetect,
  Transitions,
} from "./types.js";
import { addUnreadFindings, notCompared, unreadWarnings } from "./unread.js";

/** Options of {@link compareRuns}. */
export interface CompareOptions {
  /** Significance level of every test and 1 − the level of every interval (default 0.05). */
  alpha?: number | undefined;
  /**
   * Seed of the bootstrap, a whole number from 0 to 2^32 − 1 (default 1): the same runs and seed
   * give the same comparison.
   */
  seed?: number | undefined;
  /**
   * Bootstrap resamples, and at least as many random sign patterns of the sign-flip test past 16
   * differing cases (default 10,000, at least 1,000; 0: no bootstrap, the CLT interval and the
   * test's normal approximation).
   */
  resamples?: number | undefined;
  /** Count any new failure (passed every trial, now passes none) as a regression (default false). */
  failOnNewFailures?: boolean | undefined;
  /**
   * Called with every changed case, also those past the ones listed in `changes` (an export with a
   * baseline embeds the base attempts of them all).
   */
  onChange?: ((evalId: string, caseId: string) => void) | undefined;
}

const compareKeys = {
  alpha: true,
  seed: true,
  resamples: true,
  failOnNewFailures: true,
  onChange: true,
} satisfies KnownKeys<CompareOptions>;

/** Changed cases shown in detail per eval and direction; the counts are always complete. */
const SHOWN_CHANGES = 100;
/** Added, removed and newly failing case ids named per eval. */
const NAMED_CASES = 100;

interface Pending {
  kind: ChangeKind;
  regression: boolean;
  head: Representative | undefined;
  /** Every head trial, to pair with the base trial of the same number (sameTrialPair). */
  headTrials: Representative[];
  base?: Representative | undefined;
}

/**
 * Compares two stored runs case by case: pairs attempts by (eval id, case id), averaging trials
 * per case, and reports per eval and overall the transitions, the regressions with the
 * judgments that changed, pass rates with an exact McNemar test (with trials, the permutation
 * test of each case's trials: see pass-rate.ts), mean scores with a paired bootstrap interval,
 * what was left out and why the runs may not be comparable.
 * `base` and `head` are run ids or any reference `niceeval compare` takes: an id prefix, a run
 * name, `latest` or `latest~N` (`COMPARE_RUN_NOT_FOUND` when none names a run, `RUN_AMBIGUOUS`
 * when one names two). Holds a few numbers per case, never the records. Throws
 * `COMPARE_NOTHING_IN_COMMON` when the runs share no case.
 * @example
 * const comparison = await compareRuns(store, "main", "latest");
 * if (comparison.decision.regression) process.exitCode = 1;
 */
export async function compareRuns(
  store: Store,
  base: string,
  head: string,
  options: CompareOptions = {},
): Promise<Comparison> {
  return compareRunsFor(undefined, store, base, head, options);
}

/**
 * {@link compareRuns} for the CLI: the commands its warnings suggest repeat the `--store` the
 * command was given (`storeFlag`), as `show`'s do, so they act on the store the runs are in.
 */
export async function compareRunsFor(
  storeFlag: string | undefined,
  store: Store,
  base: string,
  head: string,
  options: CompareOptions = {},
): Promise<Comparison> {
  const settings = checkedOptions(options);
  const { baseRun, headRun } = await findRuns(store, base, head);
  const leftOut = new Map<string, LeftOut>();
  const unread = { base: new Map<string, UnreadCases>(), head: new Map<string, UnreadCases>() };
  const baseCases = await collectRun(store, baseRun, "base", { leftOut, unread: unread.base });
  const pending = new Map<string, Map<string, Pending>>();
  const headCases = await collectRun(
    store,
    headRun,
    "head",
    { leftOut, unread: unread.head },
    changesToShow(baseCases, pending, options.onChange),
  );
  await fetchBaseRepresentatives(store, baseRun.runId, pending);

  const evalIds = [
    ...headCases.keys(),
    ...[...baseCases.keys()].filter((id) => !headCases.has(id)),
  ];
  const common = evalIds.filter((id) => baseCases.has(id) && headCases.has(id));
  const allPairs: Pair[] = [];
  // Each eval of several is decided at alpha over their number (see decide).
  const gateAlpha = settings.alpha / Math.max(1, common.length);
  const evals = common.map((evalId, i) => {
    const seed = common.length === 1 ? settings.seed : settings.seed + i + 1;
    const compared = compareEval(evalId, baseCases.get(evalId)!, headCases.get(evalId)!, {
      left: leftOut.get(evalId) ?? emptyLeftOut(),
      pending: pending.get(evalId),
      stats: { ...settings, seed, gateAlpha },
    });
    // One by one: an eval of some 120,000 cases or more overflows the stack as push()'s arguments.
    for (const pair of compared.pairs) allPairs.push(pair);
    return compared.comparison;
  });
  if (allPairs.length === 0) {
    const describe = (cases: Map<string, Map<string, CaseAgg>>) =>
      `${plural(
        [...cases.values()].reduce((n, c) => n + c.size, 0),
        "case",
      )} in ${plural(cases.size, "eval")}`;
    throw new NiceevalError(
      "COMPARE_NOTHING_IN_COMMON",
      `runs ${runLabel(baseRun)} (${describe(baseCases)}) and ${runLabel(headRun)} (${describe(headCases)}) have no case in common` +
        ` (matched by eval id and case id${common.length > 0 ? ", excluding cases whose every trial was skipped" : ""}).` +
        ` ${unloadedNote(baseRun, headRun)}${nothingInCommonAdvice(baseRun, headRun)}`,
    );
  }

  const overall = overallStats(evals, allPairs, settings);
  const addedEvals = [...headCases.keys()].filter((id) => !baseCases.has(id));
  const removedEvals = [...baseCases.keys()].filter((id) => !headCases.has(id));
  for (const id of addedEvals) overall.transitions.added += headCases.get(id)!.size;
  for (const id of removedEvals) overall.transitions.removed += baseCases.get(id)!.size;

  const { alpha } = settings;
  const decision = decide(overall, evals, alpha, options.failOnNewFailures ?? false);
  addUnreadFindings(decision, unread, (id) => notCompared(id, evals, baseCases));
  return {
    base: runRef(baseRun),
    head: runRef(headRun),
    alpha,
    seed: settings.seed,
    resamples: settings.resamples,
    decision,
    overall,
    evals,
    addedEvals,
    removedEvals,
    warnings: [...comparability(baseRun, headRun, storeFlag), ...unreadWarnings(unread.base)],
  };
}

/** Largest seed of the resampling (its PRNG is seeded with 32 bits). */
const MAX_SEED = 2 ** 32 - 1;

/** The statistics' settings, checked: a bad alpha or resamples count is an error up front. */
function checkedOptions(options: CompareOptions): StatsSettings {
  const refuse = (message: string) => {
    throw new NiceevalError("COMPARE_OPTIONS", `compareRuns: ${message}`);
  };
  if (typeof options !== "object" || options === null)
    refuse(`options must be an object when given, got ${givenText(options)}`);
  // A misspelt key would be ignored: { failOnNewFailure: true } a gate off, { alfa } alpha 0.05.
  const unknown = unknownKeysIn(options, compareKeys, "options");
  if (unknown !== undefined) refuse(unknown);
  const alpha = options.alpha ?? 0.05;
  const resamples = options.resamples ?? 10_000;
  const seed = options.seed ?? 1;
  if (!(typeof alpha === "number" && alpha > 0 && alpha < 1))
    refuse(`alpha must be a number between 0 and 1, got ${givenText(alpha)}`);
  // A bootstrap of a few draws would print a 95% interval it cannot give.
  if (!(Number.isInteger(resamples) && (resamples === 0 || resamples >= 1000)))
    refuse(
      `resamples must be 0 (no bootstrap) or a whole number ≥ 1000, got ${givenText(resamples)}`,
    );
  // The resampling takes 32 bits of it: any other would draw as one of these does.
  if (!(Number.isInteger(seed) && seed >= 0 && seed <= MAX_SEED))
    refuse(`seed must be a whole number from 0 to ${MAX_SEED}, got ${givenText(seed)}`);
  return { alpha, seed, resamples, gateAlpha: alpha };
}

/**
 * Both runs, by id or by any reference `niceeval compare` takes (an id prefix, a name, latest~N),
 * or an error naming the one that is not stored.
 */
async function findRuns(store: Store, base: string, head: string) {
  const [baseRun, headRun] = await Promise.all([findRun(store, base), findRun(store, head)]);
  return { baseRun, headRun };
}

async function findRun(store: Store, ref: string): Promise<StoredRun> {
  try {
    return await resolveRunRef(store, ref);
  } catch (error) {
    if (error instanceof NiceevalError && error.code === "RUN_NOT_FOUND")
      throw new NiceevalError("COMPARE_RUN_NOT_FOUND", error.message, { cause: error });
    throw error;
  }
}

/**
 * What the head run's cases are checked with as they stream: each that changed from the base
 * (up to SHOWN_CHANGES per eval and direction) is kept in `pending` with a representative trial.
 */
function changesToShow(
  baseCases: Map<string, Map<string, CaseAgg>>,
  pending: Map<string, Map<string, Pending>>,
  onChange: CompareOptions["onChange"],
): (evalId: string, caseId: string, agg: CaseAgg, trials: AttemptRecord[]) => void {
  const shown = new Map<string, { regressions: number; improvements: number }>();
  return (evalId, caseId, agg, trials) => {
    const before = baseCases.get(evalId)?.get(caseId);
    if (!before || before.trials === 0 || agg.trials === 0) return;
    const kind = classify(before, agg);
    if (!kind) return;
    onChange?.(evalId, caseId);
    const regression = isRegression(kind, before, agg);
    const counts = shown.get(evalId) ?? { regressions: 0, improvements: 0 };
    shown.set(evalId, counts);
    const key = regression ? "regressions" : "improvements";
    if (counts[key] >= SHOWN_CHANGES) return;
    counts[key]++;
    let cases = pending.get(evalId);
    if (!cases) {
      cases = new Map();
      pending.set(evalId, cases);
    }
    const byScore = kind === "score-down" || kind === "score-up";
    cases.set(caseId, {
      kind,
      regression,
      head: byScore ? scoreRepresentative(trials, regression) : representative(trials, !regression),
      headTrials: trials.length > 1 ? trials.map(kept) : [],
    });
  };
}

/** One eval in both runs: its pairs of cases, and its comparison. */
function compareEval(
  evalId: string,
  before: Map<string, CaseAgg>,
  after: Map<string, CaseAgg>,
  of: { left: LeftOut; pending: Map<string, Pending> | undefined; stats: StatsSettings },
): { pairs: Pair[]; comparison: EvalComparison } {
  const { left } = of;
  const pairs: Pair[] = [];
  const addedCases: string[] = [];
  const removedCases: string[] = [];
  let added = 0;
  let removed = 0;
  for (const [caseId, headAgg] of after) {
    const baseAgg = before.get(caseId);
    if (!baseAgg) {
      if (added++ < NAMED_CASES) addedCases.push(caseId);
    } else if (baseAgg.trials === 0 || headAgg.trials === 0) {
      left.skippedCases++;
    } else {
      pairs.push({ evalId, caseId, base: baseAgg, head: headAgg });
    }
  }
  for (const caseId of before.keys()) {
    if (!after.has(caseId) && removed++ < NAMED_CASES) removedCases.push(caseId);
  }
  const stats = pairStats(pairs, left, of.stats);
  stats.transitions.added = added;
  stats.transitions.removed = removed;
  const changes = changesOf(evalId, pairs, of.pending);
  const { transitions } = stats;
  return {
    pairs,
    comparison: {
      evalId,
      ...stats,
      changes,
      changesTruncated: changes.length < changedCases(transitions),
      addedCases,
      removedCases,
      newFailureCases: pairs
        .filter((pair) => isNewFailure(pair.base, pair.head))
        .slice(0, NAMED_CASES)
        .map((pair) => pair.caseId),
      regressed: { passRate: false, meanScore: false },
    },
  };
}

/** The statistics of all evals together; with one eval, that eval's (same pairs, same seed). */
function overallStats(
  evals: readonly EvalComparison[],
  allPairs: readonly Pair[],
  settings: StatsSettings,
): ComparisonStats {
  const only = evals.length === 1 ? evals[0]! : undefined;
  const overall: ComparisonStats = only
    ? {
        pairs: only.pairs,
        transitions: { ...only.transitions },
        newFailures: only.newFailures,
        passRate: only.passRate,
        errored: only.errored,
        meanScore: only.meanScore,
        leftOut: { ...only.leftOut, attempts: [...only.leftOut.attempts] },
      }
    : pairStats(allPairs, mergeLeftOut(evals.map((e) => e.leftOut)), settings);
  overall.transitions.added = evals.reduce((n, e) => n + e.transitions.added, 0);
  overall.transitions.removed = evals.reduce((n, e) => n + e.transitions.removed, 0);
  return overall;
}

/** A run as a message names it: its short id, and its name when it has one. */
function runLabel(run: StoredRun): string {
  const id = run.runId.slice(0, 8);
  return run.name !== undefined ? `${id} ("${run.name}")` : id;
}

/** Streams the base run again, one eval at a time, for the trials of the changes shown. */
async function fetchBaseRepresentatives(
  store: Store,
  base: string,
  pending: Map<string, Map<string, Pending>>,
): Promise<void> {
  for (const [evalId, cases] of pending) {
    let remaining = cases.size;
    let group: AttemptRecord[] = [];
    const close = () => {
      const first = group[0];
      const wanted = first && cases.get(first.caseId);
      if (wanted && !("base" in wanted)) {
        if (wanted.kind === "score-down" || wanted.kind === "score-up") {
          // The base trial that scored highest against the head's lowest (the reverse for up).
          wanted.base = scoreRepresentative(group, !wanted.regression);
        } else {
          const paired = sameTrialPair(group.map(kept), wanted.headTrials, wanted.regression);
          wanted.base = paired?.base ?? representative(group, wanted.regression);
          if (paired) wanted.head = paired.head;
        }
        wanted.headTrials = [];
        remaining--;
      }
      group = [];
    };
    for await (const record of store.streamAttempts(base, { evalId })) {
      if (record.evalId !== evalId) continue;
      if (group[0] && group[0].caseId !== record.caseId) {
        close();
        if (remaining === 0) break;
      }
      if (cases.has(record.caseId)) group.push(record);
      else group = [record];
    }
    close();
  }
}

function changesOf(
  evalId: string,
  pairs: readonly Pair[],
  pending: Map<string, Pending> | undefined,
): CaseChange[] {
  if (!pending) return [];
  const changes: CaseChange[] = [];
  for (const pair of pairs) {
    const shown = pending.get(pair.caseId);
    if (!shown) continue;
    const change: CaseChange = {
      evalId,
      caseId: pair.caseId,
      kind: shown.kind,
      regression: shown.regression,
      base: caseSide(pair.base),
      head: caseSide(pair.head),
      judgments: diffJudgments(shown.base?.judgments ?? [], shown.head?.judgments ?? []),
      trials: {
        ...(shown.base ? { base: shown.base.trial } : {}),
        ...(shown.head ? { head: shown.head.trial } : {}),
      },
    };
    if (shown.head?.error) change.error = shown.head.error;
    changes.push(change);
  }
  // Regressions first; within each, case order (a stable sort keeps it).
  return changes.sort((a, b) => Number(b.regression) - Number(a.regression));
}

function pairStats(
  pairs: readonly Pair[],
  leftOut: LeftOut,
  options: StatsSettings,
): ComparisonStats {
  const transitions: Transitions = {
    passToFail: 0,
    failToPass: 0,
    becameErrored: 0,
    passRateDown: 0,
    passRateUp: 0,
    scoreDown: 0,
    scoreUp: 0,
    added: 0,
    removed: 0,
    unchanged: 0,
  };
  const clusters = clusterNumbers(pairs);
  let newFailures = 0;
  const judged: number[] = [];
  const scored: number[] = [];
  pairs.forEach((pair, i) => {
    const kind = classify(pair.base, pair.head);
    if (kind === "pass-to-fail") transitions.passToFail++;
    else if (kind === "fail-to-pass") transitions.failToPass++;
    else if (kind === "became-errored") transitions.becameErrored++;
    else if (kind === "pass-rate-down") transitions.passRateDown++;
    else if (kind === "pass-rate-up") transitions.passRateUp++;
    else if (kind === "score-down") transitions.scoreDown++;
    else if (kind === "score-up") transitions.scoreUp++;
    else transitions.unchanged++;
    if (isNewFailure(pair.base, pair.head)) newFailures++;
    if (judgedShare(pair.base) !== null && judgedShare(pair.head) !== null) judged.push(i);
    if (meanScore(pair.base) !== null && meanScore(pair.head) !== null) scored.push(i);
    else leftOut.unscoredCases++;
  });
  const passRate = judged.length > 0 ? passRateDifference(pairs, judged, clusters, options) : null;
  const errored = pairs.length - judged.length;
  const meanScoreDiff =
    scored.length > 0 ? scoreDifference(pairs, scored, clusters, options) : null;
  return {
    pairs: pairs.length,
    transitions,
    newFailures,
    passRate,
    // Counted as failures, errored trials would move the pass rate: what errors may hide.
    errored: errored > 0 ? erroredCases(pairs, errored, clusters, options) : null,
    meanScore: meanScoreDiff,
    leftOut,
  };
}

/**
 * Cluster numbers of the pairs (a case without a cluster is a cluster of its own; clusters never
 * span evals), or null when no case has one.
 */
function clusterNumbers(pairs: readonly Pair[]): Int32Array | null {
  if (!pairs.some((pair) => (pair.head.cluster ?? pair.base.cluster) !== undefined)) return null;
  const ids = new Map<string, number>();
  const clusters = new Int32Array(pairs.length);
  pairs.forEach((pair, i) => {
    const cluster = pair.head.cluster ?? pair.base.cluster;
    const key = `${pair.evalId}\u0000${cluster === undefined ? `\u0001${pair.caseId}` : cluster}`;
    let id = ids.get(key);
    if (id === undefined) {
      id = ids.size;
      ids.set(key, id);
    }
    clusters[i] = id;
  });
  return clusters;
}

/** The mean score's paired difference over the pairs at `scored` (both sides scored). */
function scoreDifference(
  pairs: readonly Pair[],
  scored: readonly number[],
  clusters: Int32Array | null,
  options: StatsSettings,
): ScoreComparison {
  const baseScore = new Float64Array(scored.length);
  const headScore = new Float64Array(scored.length);
  const scoreClusters = new Int32Array(scored.length);
  scored.forEach((at, j) => {
    baseScore[j] = meanScore(pairs[at]!.base)!;
    headScore[j] = meanScore(pairs[at]!.head)!;
    if (clusters) scoreClusters[j] = clusters[at]!;
  });
  const difference = withinUnitDifference(
    pairedDifference(baseScore, headScore, {
      alpha: options.alpha,
      seed: options.seed,
      resamples: options.resamples,
      testResamples: testDraws(options),
      ...(clusters ? { clusters: scoreClusters } : {}),
    }),
  );
  const permutation = clusters ? null : scorePermutation(pairs, scored, options);
  // The sign-flip test counts what it flips: clusters when clustered, and drops those whose
  // difference is 0.
  const unit = difference.clusters === null ? "case" : "cluster";
  const units = difference.clusters ?? difference.n;
  const tooFew = permutation
    ? scoreTooFew(pairs, scored, options.gateAlpha)
    : tooFewToDetect(units, unit, options.gateAlpha);
  // Units that changed: those the test can flip (a difference of rounding is none), or with the
  // permutation test, cases whose scores differ between trials.
  const fewChanged = permutation
    ? permutationFewChanged(permutation, options.gateAlpha)
    : tooFewToDetect(difference.test.differing, unit, options.gateAlpha, true);
  const pValue = permutation ? permutation.pValue : difference.test.pValue;
  const shown = shownDifference(difference, tooFew, fewChanged, pValue);
  return {
    ...shown.paired,
    decidedBy: permutation ? "permutation" : "sign-flip",
    permutationTest: permutation,
    pValue,
    tooFew,
    fewChanged,
    noInterval: shown.noInterval,
    intervalSetAside: shown.intervalSetAside,
  };
}

/**
 * The permutation test of the cases' trial scores, when a scored case ran other numbers of scored
 * trials in the two runs (else null: the sign-flip test is exact then).
 */
function scorePermutation(
  pairs: readonly Pair[],
  scored: readonly number[],
  options: StatsSettings,
): TrialPermutationTest | null {
  const unequal = scored.some((at) => pairs[at]!.base.scoreCount !== pairs[at]!.head.scoreCount);
  if (!unequal) return null;
  return scorePermutationTest(
    {
      base: scored.map((at) => pairs[at]!.base.scores),
      head: scored.map((at) => pairs[at]!.head.scores),
    },
    { resamples: testDraws(options), seed: options.seed, alpha: options.gateAlpha },
  );
}

/** Whether the permutation test can reach `alpha` with these cases' scored trials, whatever the scores. */
function scoreTooFew(
  pairs: readonly Pair[],
  scored: readonly number[],
  alpha: number,
): TooFewToDetect | null {
  const base = scored.map((at) => pairs[at]!.base.scoreCount);
  const head = scored.map((at) => pairs[at]!.head.scoreCount);
  const smallestP = smallestTrialPermutationP(base, head);
  if (smallestP < alpha) return null;
  const needed = casesToReach(alpha, Math.min(...base), Math.min(...head));
  return {
    unit: "case",
    units: scored.length,
    alpha,
    smallestP,
    needed: Math.max(needed, scored.length + 1),
  };
}

function mergeLeftOut(parts: readonly LeftOut[]): LeftOut {
  const merged = emptyLeftOut();
  for (const part of parts) {
    merged.partialAttempts += part.partialAttempts;
    merged.unavailableAttempts += part.unavailableAttempts;
    merged.unscoredCases += part.unscoredCases;
    merged.skippedCases += part.skippedCases;
    merged.truncated ||= part.truncated;
    for (const attempt of part.attempts) {
      if (merged.attempts.length < NAMED_LEFT_OUT) merged.attempts.push(attempt);
      else merged.truncated = true;
    }
  }
  // Per-eval unscored counts are added again by the pooled pass; keep the pooled one.
  merged.unscoredCases = 0;
  return merged;
}

/**
 * True when the mean score fell significantly at `alpha`: by the paired sign-flip test, exact
 * for a few differing cases, where a bootstrap interval would call a handful of flips out of
 * twenty significant.
 */
const scoreFell = (difference: ScoreComparison | null, alpha: number): boolean =>
  difference !== null && difference.mean < 0 && difference.pValue < alpha;

/** The pass rate's test, named, with its p. */
const passRateTestText = (r: PassRateComparison): string =>
  `${passRateTestName(r)} ${pText(r.pValue)}`;

/** True when the pass rate fell significantly at `alpha`. */
const passRateFell = (r: PassRateComparison | null, alpha: number): boolean =>
  r !== null && r.difference < 0 && r.pValue < alpha;

/**
 * True when cases that errored in every trial of a run may hide a fall of the pass rate: counted
 * as failures, their trials would make it fall significantly at `alpha`.
 */
const errorsMayHide = (stats: ComparisonStats, alpha: number): boolean =>
  stats.errored !== null && stats.errored.difference < 0 && stats.errored.pValue < alpha;

/**
 * Every check {@link decide} makes, by the name it gives a finding (`RegressionDecision.checks`),
 * found or not: the run's pass rate, its errored cases and its mean score, each eval's own when
 * there are several, and new failures when asked for.
 */
export function regressionCheckNames(
  evalIds: readonly string[],
  failOnNewFailures: boolean,
): string[] {
  return [
    "pass rate",
    "errors",
    "mean score",
    ...(evalIds.length > 1 ? evalIds.flatMap((id) => [`eval "${id}"`, `eval "${id}" errors`]) : []),
    ...(failOnNewFailures ? ["new failures"] : []),
  ];
}

function decide(
  overall: ComparisonStats,
  evals: EvalComparison[],
  alpha: number,
  failOnNewFailures: boolean,
): RegressionDecision {
  const reasons: string[] = [];
  const checks: string[] = [];
  const found = (check: string, reason: string) => {
    checks.push(check);
    reasons.push(reason);
  };
  const passRate = passRateFell(overall.passRate, alpha);
  const meanScoreFell = scoreFell(overall.meanScore, alpha);
  if (passRate) {
    const r = overall.passRate!;
    found(
      "pass rate",
      `pass rate fell from ${pct(r.base)} to ${pct(r.head)} (n = ${r.n}, ${passRateTestText(r)} < ${alpha})`,
    );
  }
  if (!passRate && errorsMayHide(overall, alpha)) {
    const errored = overall.errored!;
    found(
      "errors",
      `${plural(errored.cases, "case")} errored in every trial of a run, which is no evidence either way; had their errored trials failed, the pass rate would have fallen (${erroredTestName(errored)} ${pText(errored.pValue)} < ${alpha}): run them again (niceeval run --retry-errors) before deciding`,
    );
  }
  if (meanScoreFell) {
    const d = overall.meanScore!;
    found(
      "mean score",
      `mean score fell by ${(-d.mean).toFixed(3)} (n = ${d.n}, ${scoreTestName(d)} ${pText(d.pValue)} < ${alpha})`,
    );
  }
  const regressedEvals: string[] = [];
  if (evals.length === 1) {
    // One eval is the whole run: it regressed when the run did, said once by the run's reasons.
    evals[0]!.regressed = { passRate, meanScore: meanScoreFell };
    if (passRate || meanScoreFell) regressedEvals.push(evals[0]!.evalId);
  } else {
    // Each eval on its own, Bonferroni-corrected so that many evals do not inflate false alarms.
    const perEval = alpha / evals.length;
    for (const e of evals) {
      e.regressed = {
        passRate: passRateFell(e.passRate, perEval),
        meanScore: scoreFell(e.meanScore, perEval),
      };
      if (e.regressed.passRate || e.regressed.meanScore) {
        regressedEvals.push(e.evalId);
        found(
          `eval "${e.evalId}"`,
          `eval "${e.evalId}" regressed on its own (${[
            e.regressed.passRate ? `pass rate ${pText(e.passRate!.pValue)}` : "",
            e.regressed.meanScore ? `mean score ${pText(e.meanScore!.pValue)}` : "",
          ]
            .filter(Boolean)
            .join(", ")} < ${alpha}/${evals.length})`,
        );
      } else if (!passRate && errorsMayHide(e, perEval)) {
        found(
          `eval "${e.evalId}" errors`,
          `eval "${e.evalId}": ${plural(e.errored!.cases, "case")} errored in every trial of a run; had they failed, its pass rate would have fallen (${erroredTestName(e.errored!)} ${pText(e.errored!.pValue)} < ${alpha}/${evals.length}): run them again (niceeval run --retry-errors) before deciding`,
        );
      }
    }
  }
  if (failOnNewFailures && overall.newFailures > 0) {
    found(
      "new failures",
      `${plural(overall.newFailures, "case")} passed every trial before and pass none now`,
    );
  }
  return {
    regression: reasons.length > 0,
    alpha,
    passRate,
    meanScore: meanScoreFell,
    evals: regressedEvals,
    newFailures: overall.newFailures,
    failOnNewFailures,
    reasons,
    checks,
  };
}

function comparability(
  base: StoredRun,
  head: StoredRun,
  storeFlag: string | undefined,
): ComparabilityWarning[] {
  const warnings = [
    ...sameOrShards(base, head),
    ...unfinished(base, head, storeFlag),
    ...resumedWarnings(base, head),
  ];
  const before = new Map(base.evals.map((e) => [e.evalId, e]));
  for (const after of head.evals) {
    const was = before.get(after.evalId);
    if (!was) continue;
    // `differs`: what differs, with its verb ("the dataset differs", "the judge models differ").
    const warn = (kind: ComparabilityWarning["kind"], b: string, h: string, differs: string) =>
      warnings.push({
        evalId: after.evalId,
        kind,
        base: b,
        head: h,
        message: `eval "${after.evalId}": ${differs} between the runs (base ${b}, head ${h}); a difference in results may come from it`,
      });
    if (was.configHash !== after.configHash)
      warn("config", was.configHash, after.configHash, "the configuration differs");
    if (was.datasetHash && after.datasetHash && was.datasetHash !== after.datasetHash) {
      warn("dataset", was.datasetHash, after.datasetHash, "the dataset differs");
    }
    const [then, now] = [modelList(was.judgeModels), modelList(after.judgeModels)];
    if (then !== now) warn("judge-models", then, now, "the judge models differ");
    if (was.trials !== after.trials)
      warn("trials", String(was.trials), String(after.trials), "the number of trials differs");
  }
  return warnings;
}

/**
 * What to compare instead of two runs that share no case: when they are other shards, whole runs
 * (each one's merged run) or the same shard of two runs.
 */
/**
 * Why a run may hold no case: eval files of it that failed to load ran none, said with where to
 * read the error; nothing when both loaded every file.
 */
function unloadedNote(base: StoredRun, head: StoredRun): string {
  const notes: string[] = [];
  for (const [which, run] of [
    ["base", base],
    ["head", head],
  ] as const) {
    const { files } = loadTroubles(run.loadErrors ?? []);
    if (files > 0)
      notes.push(
        `The ${which} run had ${plural(files, "file")} failed to load, so the evals in it ran no case (\`niceeval show ${run.name ?? run.runId.slice(0, 8)}\` says why). `,
      );
  }
  return notes.join("");
}

function nothingInCommonAdvice(base: StoredRun, head: StoredRun): string {
  if (!base.shard && !head.shard)
    return "Compare two runs of the same evals, or check the run ids with `niceeval runs`.";
  const shown = (run: StoredRun) => (run.shard ? `shard ${formatShard(run.shard)}` : "a whole run");
  const both = base.shard && head.shard ? " of a sharded run" : "";
  return `The base run is ${shown(base)} and the head run ${shown(head)}${both}: each shard holds other cases. Compare whole runs: name the merged run of each (\`niceeval runs\` lists it without a [shard] mark; a run whose shards were never merged needs \`niceeval merge <its shards>\` first), or the same shard of two runs.`;
}

/** A warning when base and head are one run, or hold other shards of the cases. */
function sameOrShards(base: StoredRun, head: StoredRun): ComparabilityWarning[] {
  if (base.runId === head.runId) {
    const id = base.runId.slice(0, 8);
    return [
      {
        kind: "same-run",
        base: base.runId,
        head: head.runId,
        message: `base and head are the same run (${id}${base.name !== undefined ? `, ${base.name}` : ""}): every case is compared with itself, so nothing can differ; compare two runs (\`niceeval compare latest~1 latest\` compares the last two)`,
      },
    ];
  }
  const part = (run: StoredRun) => (run.shard ? formatShard(run.shard) : "whole");
  const [b, h] = [part(base), part(head)];
  if (b === h) return [];
  const shown = (run: StoredRun) => (run.shard ? `shard ${formatShard(run.shard)}` : "a whole run");
  return [
    {
      kind: "shard",
      base: b,
      head: h,
      message: `the base run is ${shown(base)} and the head run ${shown(head)}: they hold different cases, so the cases of one only count as removed or added, not as changes; compare the same shard of two runs, or the merged runs (\`niceeval merge\`)`,
    },
  ];
}

/**
 * A warning per run that did not finish: the cases it never ran, or never judged (cut off by its
 * stop: collect.ts leaves those attempts out), are not changes of the dataset.
 */
function unfinished(
  base: StoredRun,
  head: StoredRun,
  storeFlag: string | undefined,
): ComparabilityWarning[] {
  const statuses = { base: effectiveStatus(base), head: effectiveStatus(head) };
  const warnings: ComparabilityWarning[] = [];
  for (const side of ["base", "head"] as const) {
    const status = statuses[side];
    if (status === "finished") continue;
    const run = side === "base" ? base : head;
    const state = status === "running" ? "is still running" : `${status} before it finished`;
    const counted = side === "base" ? "added" : "removed";
    warnings.push({
      kind: "unfinished",
      base: statuses.base,
      head: statuses.head,
      message: `the ${side} run ${state}: the cases it did not run, or ran only until its stop cut them off, count as ${counted}, not as changes of the dataset; ${finish(run, status, storeFlag)}`,
    });
  }
  return warnings;
}

/** What to do about a run that did not finish before comparing again, in the store it is in. */
function finish(run: StoredRun, status: string, storeFlag: string | undefined): string {
  if (status === "running") return "compare again once it finishes";
  const imported = importedRunAdvice(run);
  if (imported) return `${imported}, then compare again`;
  return `finish it with ${resumeCommand(run.runId, storeFlag)} and compare again`;
}

function runRef(run: StoredRun): RunRef {
  const ref: RunRef = { runId: run.runId, status: run.status, startedAt: run.startedAt };
  if (run.name !== undefined) ref.name = run.name;
  if (run.git !== undefined) ref.git = run.git;
  return ref;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
