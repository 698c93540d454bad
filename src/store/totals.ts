import type { EvalSummary } from "../runner/events.js";
import { SCORE_STATE_CODE, VERDICT_CODE } from "./sqlite/schema.js";
import type { RunManifest, RunStatus, RunTotals, StoredRun } from "./types.js";

// Per-eval totals every backend keeps up to date on append, and the stored run built from them.

/**
 * Whether an attempt's error cell (its `error` as JSON, or null) says the run's stop cut it off:
 * 1 or 0, as a SQL expression gives it.
 */
export function cutCell(error: unknown): number {
  if (typeof error !== "string" || !error.includes('"interrupted"')) return 0;
  try {
    return (JSON.parse(error) as { interrupted?: unknown }).interrupted === true ? 1 : 0;
  } catch {
    return 0;
  }
}

/** What one attempt adds to its eval's totals (the columns of its row). */
export interface Contribution {
  verdict: number;
  score_state: number;
  earned: number;
  max: number;
  /**
   * 1 (or true) when the run's stop cut it off (errored, `error.interrupted`): counted in
   * `interrupted`, since it was not judged and so is in no pass rate.
   */
  cut: number | boolean;
}

/** The counters kept per eval of a run, added to on every append. */
export const COUNTERS = [
  "cases",
  "attempts",
  "passed",
  "failed",
  "errored",
  "skipped",
  "interrupted",
  "scored",
  "score_sum",
] as const;
export type Delta = Record<(typeof COUNTERS)[number], number>;
export const zeroDelta = () => Object.fromEntries(COUNTERS.map((c) => [c, 0])) as Delta;

const VERDICT_FIELD = {
  [VERDICT_CODE.passed]: "passed",
  [VERDICT_CODE.failed]: "failed",
  [VERDICT_CODE.errored]: "errored",
  [VERDICT_CODE.skipped]: "skipped",
} as const;

/** Add (sign 1) or take back (sign -1) one attempt's share of its eval's totals. */
export function countAttempt(delta: Delta, attempt: Contribution, sign: 1 | -1): void {
  delta.attempts += sign;
  const field = VERDICT_FIELD[attempt.verdict as keyof typeof VERDICT_FIELD];
  if (field) delta[field] += sign;
  if (attempt.cut && attempt.verdict === VERDICT_CODE.errored) delta.interrupted += sign;
  if (
    attempt.score_state !== SCORE_STATE_CODE.unavailable &&
    attempt.max > 0 &&
    attempt.verdict !== VERDICT_CODE.skipped
  ) {
    delta.scored += sign;
    delta.score_sum += (sign * attempt.earned) / attempt.max;
  }
}

/** What taking one attempt out of its eval's totals changes; `lastOfCase`: no trial of its case is left. */
export function retiredDelta(attempt: Contribution, lastOfCase: boolean): Delta {
  const delta = zeroDelta();
  countAttempt(delta, attempt, -1);
  if (lastOfCase) delta.cases--;
  return delta;
}

/** A run's row as both backends keep it: the manifest and summaries as JSON text. */
export interface StoredRunRow {
  status: RunStatus;
  ended_at: string | null;
  manifest: string;
  summaries: string | null;
}

/** The stored run of a row, with the summed counters of its evals (`evals`: those with attempts). */
export function storedRun(row: StoredRunRow, evals: number, d: Delta): StoredRun {
  const totals: RunTotals = {
    evals,
    cases: d.cases,
    attempts: d.attempts,
    passed: d.passed,
    failed: d.failed,
    errored: d.errored,
    skipped: d.skipped,
    interrupted: d.interrupted,
    meanScore: d.scored > 0 ? d.score_sum / d.scored : null,
    scoredAttempts: d.scored,
  };
  const run: StoredRun = {
    ...(JSON.parse(row.manifest) as RunManifest),
    status: row.status,
    totals,
  };
  if (row.ended_at !== null) run.endedAt = row.ended_at;
  if (row.summaries !== null) run.summaries = JSON.parse(row.summaries) as EvalSummary[];
  return run;
}
