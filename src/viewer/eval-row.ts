import type { EvalSummary } from "../runner/events.js";
import type { RunRow } from "./api.js";

/**
 * A run's line with the figures of one of its evals: its cases (with trials, the cases its
 * trials are of), attempts and counts, pass rate and mean score with their intervals. Before
 * the run has summaries (running, crashed), the whole run's, as nothing per eval is known yet.
 * Imports nothing but types: the web app's static export filters its runs with it too.
 */
export function withEvalFigures(
  row: RunRow,
  summaries: readonly EvalSummary[] | undefined,
  evalId: string,
): RunRow {
  const summary = summaries?.find((s) => s.evalId === evalId);
  const own = row.perEval.find((e) => e.evalId === evalId);
  if (!summary || !own) return row;
  return {
    ...row,
    cases: summary.trials ? summary.trials.cases : summary.cases,
    attempts: summary.cases,
    passed: summary.passed,
    failed: summary.failed,
    errored: summary.errored,
    skipped: summary.skipped,
    interrupted: summary.interrupted ?? 0,
    passRate: own.passRate,
    passRateInterval: own.passRateInterval,
    passRateCases: own.passRateCases,
    meanScore: own.meanScore,
    meanScoreInterval: own.meanScoreInterval,
    scoredAttempts: own.scoredAttempts,
    meanScoreCases: own.meanScoreCases,
    partialAttempts: own.partialCases,
  };
}
