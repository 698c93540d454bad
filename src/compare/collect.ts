import { DATASET_ERROR_ID } from "../eval/ids.js";
import { type AttemptRecord, cutOff } from "../eval/record.js";
import type { UnreadCases } from "../runner/events.js";
import { NEGLIGIBLE_SPREAD } from "../stats/spread.js";
import { completeScore } from "../stats/trials.js";
import type { Store, StoredRun } from "../store/types.js";
import type { CaseSide, ChangeKind, LeftOut, Side } from "./types.js";

/** What one run says about one case: a few numbers, never the records. */
export interface CaseAgg {
  cluster: string | undefined;
  trials: number;
  passed: number;
  errored: number;
  scoreSum: number;
  scoreCount: number;
  /** The complete score of each trial that has one, for the mean score's permutation test. */
  scores: number[];
}

/** One case in both runs. */
export interface Pair {
  evalId: string;
  caseId: string;
  base: CaseAgg;
  head: CaseAgg;
}

/** Cases of one run, per eval, in stream (case) order. */
export type RunCases = Map<string, Map<string, CaseAgg>>;

/** Most left-out attempts named per eval. */
export const NAMED_LEFT_OUT = 100;

export const emptyLeftOut = (): LeftOut => ({
  partialAttempts: 0,
  unavailableAttempts: 0,
  unscoredCases: 0,
  skippedCases: 0,
  attempts: [],
  truncated: false,
});

/**
 * Streams a run's attempts into per-case aggregates, counting (and naming the first of) the
 * attempts whose score is partial or unavailable. `onCase` sees each case's trials once they
 * are all in (the store streams a case's trials consecutively). An eval's `(cases)` attempt (its
 * dataset could not be read whole) is no case: it goes to `unread`, by eval. An attempt the run's
 * stop cut off is left out, as one that did not start is: it was not judged, so it is no evidence
 * of a change (a case whose every trial was cut off is not in the run, as its reports say).
 */
export async function collectRun(
  store: Store,
  stored: Pick<StoredRun, "runId" | "evals">,
  run: Side,
  collected: { leftOut: Map<string, LeftOut>; unread: Map<string, UnreadCases> },
  onCase?: (evalId: string, caseId: string, agg: CaseAgg, trials: AttemptRecord[]) => void,
): Promise<RunCases> {
  const { leftOut, unread } = collected;
  const evals: RunCases = new Map();
  const trials: AttemptRecord[] = [];
  let current: CaseAgg | undefined;
  const flush = () => {
    const first = trials[0];
    if (onCase && first && current) onCase(first.evalId, first.caseId, current, trials);
    trials.length = 0; // reused: onCase must not keep the array
  };
  let cases: Map<string, CaseAgg> | undefined;
  const trialsOf = new Map(stored.evals.map((e) => [e.evalId, e.trials]));
  for await (const record of store.streamAttempts(stored.runId)) {
    if (record.caseId === DATASET_ERROR_ID) {
      const message = record.error?.message ?? "";
      unread.set(record.evalId, { afterCases: record.index ?? 0, message });
      continue;
    }
    if (cutOff(record)) continue;
    const first = trials[0];
    const sameCase = first?.evalId === record.evalId && first.caseId === record.caseId;
    if (first && !sameCase) flush();
    if (!sameCase || !current) {
      if (first?.evalId !== record.evalId || !cases) {
        cases = evals.get(record.evalId);
        if (!cases) {
          cases = new Map();
          evals.set(record.evalId, cases);
        }
      }
      current = cases.get(record.caseId);
      if (!current) {
        current = {
          cluster: undefined,
          trials: 0,
          passed: 0,
          errored: 0,
          scoreSum: 0,
          scoreCount: 0,
          scores: [],
        };
        cases.set(record.caseId, current);
      }
    }
    if (onCase) trials.push(record);
    else trials[0] = record;
    addAttempt(current, record, { run, trials: trialsOf.get(record.evalId) ?? 1 }, leftOut);
  }
  flush();
  return evals;
}

function addAttempt(
  agg: CaseAgg,
  record: AttemptRecord,
  { run, trials }: { run: Side; trials: number },
  leftOut: Map<string, LeftOut>,
) {
  if (record.cluster !== undefined) agg.cluster = record.cluster;
  if (record.verdict === "skipped") return;
  agg.trials++;
  if (record.verdict === "passed") agg.passed++;
  if (record.verdict === "errored") agg.errored++;
  const score = completeScore(record);
  if (score !== null) {
    agg.scoreSum += score;
    agg.scoreCount++;
    agg.scores.push(score);
    return;
  }
  const { state } = record.score;
  if (state === "complete") return; // no points to earn: nothing to compare, nothing left out
  let left = leftOut.get(record.evalId);
  if (!left) {
    left = emptyLeftOut();
    leftOut.set(record.evalId, left);
  }
  if (state === "partial") left.partialAttempts++;
  else left.unavailableAttempts++;
  if (left.attempts.length < NAMED_LEFT_OUT) {
    left.attempts.push({
      run,
      evalId: record.evalId,
      caseId: record.caseId,
      trial: record.trial ?? 0,
      trials,
      state,
    });
  } else {
    left.truncated = true;
  }
}

/** Share of the trials that passed, an errored one counted as not passing. */
export const passShare = (agg: CaseAgg): number => agg.passed / agg.trials;

/**
 * Share of the trials that did not error that passed (an error is no evidence either way), or
 * null when every trial errored.
 */
export const judgedShare = (agg: CaseAgg): number | null =>
  agg.trials > agg.errored ? agg.passed / (agg.trials - agg.errored) : null;

export const meanScore = (agg: CaseAgg): number | null =>
  agg.scoreCount > 0 ? agg.scoreSum / agg.scoreCount : null;

export const caseSide = (agg: CaseAgg): CaseSide => ({
  trials: agg.trials,
  passed: agg.passed,
  errored: agg.errored,
  score: meanScore(agg),
});

/**
 * How a paired case changed, or null when its pass share and error state held: an errored trial
 * counts as not passing, so errors that grew show as a falling share; pass-to-fail is a new
 * failure (every trial that did not error passed, now none passes), fail-to-pass the reverse
 * between all trials and none (so always with one trial each); else with trials pass-rate-down
 * or pass-rate-up.
 */
export function classify(base: CaseAgg, head: CaseAgg): ChangeKind | null {
  if (head.errored === head.trials && base.errored < base.trials) return "became-errored";
  if (isNewFailure(base, head)) return "pass-to-fail";
  const before = passShare(base);
  const after = passShare(head);
  if (after < before) return "pass-rate-down";
  if (after > before) return before === 0 && after === 1 ? "fail-to-pass" : "pass-rate-up";
  const [was, now] = [meanScore(base), meanScore(head)];
  if (was === null || now === null) return null;
  // A difference of rounding (trial scores summed in another order) is none.
  if (Math.abs(now - was) <= NEGLIGIBLE_SPREAD * Math.max(Math.abs(now), Math.abs(was)))
    return null;
  return now < was ? "score-down" : "score-up";
}

/** Whether a change of `kind` from `base` to `head` is a regression (see CaseChange.regression). */
export const isRegression = (kind: ChangeKind, base: CaseAgg, head: CaseAgg): boolean =>
  kind === "score-down" || passShare(head) < passShare(base);

/**
 * Passed every trial that did not error before (one at least), passes none now, and failed some
 * (every one errored: became-errored). An errored base trial is no evidence either way: a judge
 * outage on the base run must not hide a case that now fails.
 */
export const isNewFailure = (base: CaseAgg, head: CaseAgg): boolean =>
  base.passed > 0 &&
  base.passed === base.trials - base.errored &&
  head.passed === 0 &&
  head.errored < head.trials;
