import type { AttemptRecord, Judgment, Verdict } from "../eval/record.js";
import type { EvalSummary } from "../runner/events.js";
import type { RunSummary } from "../runner/summary.js";
import type { Masker } from "./config.js";

/** Attribute values as OpenTelemetry takes them (no nested values, no undefined). */
export type Attributes = Record<string, string | number | boolean>;

/** The event name of a judgment's log record (OpenTelemetry GenAI semantic conventions). */
export const EVALUATION_EVENT = "gen_ai.evaluation.result";

/** `test.case.result.status`: the well-known `pass` and `fail`, and `skipped` for a skipped case. */
export function caseStatus(verdict: Verdict): string {
  return verdict === "passed" ? "pass" : verdict === "skipped" ? "skipped" : "fail";
}

/**
 * `test.suite.run.status` of an eval or a run: `failure` once a case failed or errored, or when
 * it failed otherwise (`failedOtherwise`: an eval whose cases could not all be read, a run whose
 * verdict is not ok, such as a file that did not load or a gate not met).
 */
function suiteStatus(
  counts: { failed: number; errored: number; skipped: number; cases: number },
  failedOtherwise = false,
) {
  if (failedOtherwise || counts.failed + counts.errored > 0) return "failure";
  return counts.cases > 0 && counts.skipped === counts.cases ? "skipped" : "success";
}

/** What identifies an attempt, on its span and on each of its judgments' log records. */
export function attemptIdentity(
  runId: string,
  attempt: { evalId: string; caseId: string; trial: number; index: number },
  mask: Masker,
): Attributes {
  return {
    "test.suite.name": mask(attempt.evalId),
    "test.case.name": mask(`${attempt.evalId}/${attempt.caseId}`),
    "niceeval.run.id": runId,
    "niceeval.eval.id": mask(attempt.evalId),
    "niceeval.case.id": mask(attempt.caseId),
    "niceeval.trial": attempt.trial,
    ...(attempt.index >= 0 ? { "niceeval.case.index": attempt.index } : {}),
  };
}

/** The outcome of an attempt, set on its span when it finishes. */
export function attemptOutcome(record: AttemptRecord, mask: Masker): Attributes {
  const { score, usage } = record;
  return {
    "test.case.result.status": caseStatus(record.verdict),
    "niceeval.verdict": record.verdict,
    "niceeval.score.state": score.state,
    "niceeval.score.max": score.max,
    // Earned and the ratio only when there is evidence: an unavailable score is not a zero.
    ...(score.state !== "unavailable" ? { "niceeval.score.earned": score.earned } : {}),
    ...(score.state !== "unavailable" && score.max > 0
      ? { "niceeval.score.value": score.earned / score.max }
      : {}),
    "niceeval.elapsed_ms": record.elapsedMs,
    "niceeval.judgments": record.judgments.length,
    ...(record.cluster !== undefined ? { "niceeval.case.cluster": mask(record.cluster) } : {}),
    ...(record.error
      ? { "niceeval.error.where": mask(record.error.where), "error.type": "niceeval.errored" }
      : {}),
    ...(record.skipReason !== undefined ? { "niceeval.skip.reason": mask(record.skipReason) } : {}),
    ...(usage.judge.calls > 0
      ? {
          "niceeval.judge.calls": usage.judge.calls,
          "niceeval.judge.input_tokens": usage.judge.inputTokens,
          "niceeval.judge.output_tokens": usage.judge.outputTokens,
          ...(usage.judge.costUsd !== undefined
            ? { "niceeval.judge.cost_usd": usage.judge.costUsd }
            : {}),
          // The cost above leaves these calls out: a lower bound, not the cost.
          ...(usage.judge.unpriced
            ? { "niceeval.judge.unpriced_calls": usage.judge.unpriced.calls }
            : {}),
          // Answers that reported no usage: the tokens and cost above are lower bounds.
          ...(usage.judge.unreportedCalls
            ? { "niceeval.judge.unreported_calls": usage.judge.unreportedCalls }
            : {}),
        }
      : {}),
  };
}

/** The figures of an eval, set on its span when it finishes. */
export function evalOutcome(summary: EvalSummary): Attributes {
  return {
    "test.suite.run.status": suiteStatus(summary, summary.unread !== undefined),
    "niceeval.eval.cases": summary.cases,
    "niceeval.eval.passed": summary.passed,
    "niceeval.eval.failed": summary.failed,
    "niceeval.eval.errored": summary.errored,
    "niceeval.eval.skipped": summary.skipped,
    "niceeval.eval.scored_cases": summary.scoredCases,
    ...(summary.meanScore !== null ? { "niceeval.eval.mean_score": summary.meanScore } : {}),
  };
}

/** The totals of a run, set on its span when it finishes. */
export function runOutcome(summary: RunSummary): Attributes {
  const t = summary.totals;
  return {
    "test.suite.run.status": summary.cancelled ? "aborted" : suiteStatus(t, !summary.ok),
    "niceeval.run.ok": summary.ok,
    "niceeval.run.evals": t.evals,
    "niceeval.run.cases": t.cases,
    "niceeval.run.passed": t.passed,
    "niceeval.run.failed": t.failed,
    "niceeval.run.errored": t.errored,
    "niceeval.run.skipped": t.skipped,
    "niceeval.run.load_errors": summary.loadErrors.length,
  };
}

/**
 * The `gen_ai.evaluation.*` attributes of one judgment. A judgment without evidence
 * (unavailable) or whose scorer crashed (errored) has no score value: its label says which, and
 * the explanation says why. Never a zero.
 */
export function judgmentAttributes(judgment: Judgment, mask: Masker): Attributes {
  const value = scoreValue(judgment);
  return {
    "gen_ai.evaluation.name": mask(judgment.label),
    ...(value !== undefined ? { "gen_ai.evaluation.score.value": value } : {}),
    "gen_ai.evaluation.score.label": scoreLabel(judgment),
    ...(judgment.reason ? { "gen_ai.evaluation.explanation": mask(judgment.reason) } : {}),
    ...(judgment.state === "errored" ? { "error.type": "niceeval.judgment.errored" } : {}),
    "niceeval.judgment.state": judgment.state,
    "niceeval.judgment.source": mask(judgment.source),
    "niceeval.judgment.gate": judgment.gate,
    "niceeval.judgment.points": judgment.points,
    ...(judgment.earned !== null ? { "niceeval.judgment.earned": judgment.earned } : {}),
  };
}

/** `pass` / `fail` when judged, else the state itself (`unavailable`, `errored`). */
function scoreLabel(judgment: Judgment): string {
  if (judgment.state === "matched") return "pass";
  if (judgment.state === "mismatched") return "fail";
  return judgment.state;
}

/**
 * The judgment's 0..1 value: its raw value, else the share of its points it earned, else 1 or 0
 * for a pure gate that held or did not; none without evidence.
 */
function scoreValue(judgment: Judgment): number | undefined {
  if (judgment.state === "unavailable" || judgment.state === "errored") return undefined;
  if (typeof judgment.value === "number" && Number.isFinite(judgment.value)) return judgment.value;
  if (judgment.points > 0 && judgment.earned !== null) return judgment.earned / judgment.points;
  return judgment.state === "matched" ? 1 : 0;
}
