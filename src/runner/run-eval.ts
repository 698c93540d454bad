import type { AttemptRecord, Judgment, Verdict } from "../eval/record.js";
import {
  defineSuite,
  refusePlainSuiteKeys,
  type Suite,
  type Target,
  type TypedEvalSuite,
} from "../eval/suite.js";
import { namesItsScorer } from "../eval/summarize.js";
import { checkTimeoutMs, checkWholeNumber } from "../eval/timeout.js";
import { type KnownKeys, refuseUnknownKeys } from "../known-keys.js";
import type { Score } from "../score/score.js";
import type { EvalEvent } from "./events.js";
import { MAX_CONCURRENCY, runEvals } from "./run.js";
import type { RunSink } from "./sink.js";
import type { Telemetry } from "./telemetry.js";

/** Options of {@link runEval}. */
export interface RunEvalOptions<Input, Output> {
  /** Produces each case's output (optional when the suite was made with defineSuite). */
  target?: Target<Input, Output> | undefined;
  telemetry?: Telemetry<EvalEvent> | undefined;
  /** Sinks that see the run as `runEvals`' do, such as `await otelSink()`. */
  reporters?: readonly RunSink[] | undefined;
  /** Attempts running at once (default 8, at most 1024). */
  concurrency?: number | undefined;
  /** Limit on each attempt (target, scorers and their judge calls), ms. */
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
  /** Once `signal` aborts, how long attempts may go on before they are given up on (default 2000 ms). */
  abortGraceMs?: number | undefined;
  /** Keep each case's output on its CaseReport. */
  keepOutput?: boolean | undefined;
}
const runEvalOptionKeys = {
  target: true,
  telemetry: true,
  reporters: true,
  concurrency: true,
  timeoutMs: true,
  signal: true,
  abortGraceMs: true,
  keepOutput: true,
} satisfies KnownKeys<RunEvalOptions<unknown, unknown>>;

/** One scorer's result on one case. `score` is null when the scorer errored. */
export interface CaseScore {
  scorerId: string;
  score: Score | null;
  state: Judgment["state"];
  /** Why an errored scorer failed. */
  error?: string;
  /** Why an unavailable one gave no value (a judge that could not answer, missing evidence). */
  reason?: string;
}

/** One case's result. */
export interface CaseReport {
  caseId: string;
  verdict: Verdict;
  passed: boolean;
  /**
   * Mean of the scorers' values over those that produced one; null when none did. A scorer
   * without a value (its judgment unavailable or errored) is left out: see `partial`.
   */
  meanValue: number | null;
  /**
   * meanValue left out a scorer that gave no value: it is the mean of what could be judged, while
   * the case's score (`record.score`) keeps that scorer's point in its max, a lower bound.
   */
  partial: boolean;
  scores: CaseScore[];
  error?: string;
  output?: unknown;
  record: AttemptRecord;
}

/** A suite's result. */
export interface EvalReport {
  suiteId: string;
  runId: string;
  total: number;
  passedCount: number;
  failedCount: number;
  erroredCount: number;
  /**
   * Mean of the cases' meanValue over cases that have one (n = scoredCount). Equal to the eval's
   * mean score when no evidence is missing; above it when some is (see partialCount).
   */
  meanValue: number | null;
  scoredCount: number;
  /** Cases of scoredCount whose meanValue left out a scorer that gave no value (`partial`). */
  partialCount: number;
  cases: CaseReport[];
  elapsedMs: number;
  /** The signal cancelled the run: cases that had not started are not in `cases`. */
  cancelled: boolean;
  /**
   * What the telemetry or a reporter could not do (one line each, as printed on stderr), when
   * something failed; the cases are judged all the same.
   */
  reportErrors?: string[];
}

/**
 * Run a suite from code, on the same engine as `niceeval run`.
 * @example
 * const report = await runEval(suite, { target, telemetry: arrayTelemetry<EvalEvent>() });
 * report.passedCount;
 */
export function runEval<Input, Output, Expected = unknown>(
  suite: TypedEvalSuite<Input, Output, Expected> | Suite<Input, Output>,
  options?: RunEvalOptions<Input, Output>,
): Promise<EvalReport>;
// The cases' expected type only checks the scorers: the suite runs any.
export async function runEval<Input, Output>(
  suite: TypedEvalSuite<Input, Output> | Suite<Input, Output>,
  options: RunEvalOptions<Input, Output> = {},
): Promise<EvalReport> {
  const id: unknown = (suite as { id?: unknown } | null)?.id;
  const where = typeof id === "string" && id ? `runEval("${id}")` : "runEval";
  refuseUnknownKeys(where, options, runEvalOptionKeys, "options");
  // Checked here too, so a refusal names runEval and the eval, not runEvals' bare option.
  checkWholeNumber(`${where}: \`concurrency\``, options.concurrency, 1, MAX_CONCURRENCY);
  checkTimeoutMs(`${where}: \`timeoutMs\``, options.timeoutMs);
  const runnable = toRunnable(suite, options.target, where);
  const cases: CaseReport[] = [];
  const summary = await runEvals([{ eval: runnable }], {
    ...(options.telemetry ? { telemetry: [options.telemetry] } : {}),
    ...(options.reporters ? { reporters: options.reporters } : {}),
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.abortGraceMs !== undefined ? { abortGraceMs: options.abortGraceMs } : {}),
    ...(options.keepOutput ? { keepOutput: true } : {}),
    onRecord: (record) => cases.push(toCaseReport(record)),
  });
  // A skipped case is out of the mean as it is out of the counts of passed and failed.
  const scored = cases.filter((c) => c.meanValue !== null && c.verdict !== "skipped");
  return {
    suiteId: runnable.id,
    runId: summary.runId,
    total: cases.length,
    passedCount: summary.totals.passed,
    failedCount: summary.totals.failed,
    erroredCount: summary.totals.errored,
    meanValue: scored.length
      ? scored.reduce((sum, c) => sum + (c.meanValue ?? 0), 0) / scored.length
      : null,
    scoredCount: scored.length,
    partialCount: scored.filter((c) => c.partial).length,
    cases,
    elapsedMs: summary.elapsedMs,
    cancelled: summary.cancelled,
    ...(summary.reportErrors ? { reportErrors: summary.reportErrors } : {}),
  };
}

function toRunnable<Input, Output>(
  suite: TypedEvalSuite<Input, Output> | Suite<Input, Output>,
  target: Target<Input, Output> | undefined,
  where: string,
): Suite<Input, Output> {
  if ("definition" in suite && "runCase" in suite) {
    return target ? defineSuite({ ...suite.definition, target }) : suite;
  }
  if ((suite as { style?: unknown }).style === "score")
    throw new TypeError(
      `runEval: "${suite.id}" is a score eval, which runEval does not take (it runs suites); run it with runEvals([{ eval }]) or its own run()`,
    );
  refusePlainSuiteKeys(
    where,
    suite,
    "make the suite with defineSuite({ …, target }) and pass that to runEval",
  );
  if (!target) {
    throw new TypeError(
      `runEval: suite "${suite.id}" has no target; pass { target } in the options`,
    );
  }
  return defineSuite({ id: suite.id, cases: suite.cases, scorers: suite.scorers, target });
}

function toCaseReport(record: AttemptRecord): CaseReport {
  const scores: CaseScore[] = record.judgments.map((judgment) => {
    const value = judgment.value ?? judgment.earned;
    const score: CaseScore = {
      scorerId: judgment.label,
      state: judgment.state,
      score:
        judgment.state === "errored" || value === null || value === undefined
          ? null
          : {
              value: Math.min(1, Math.max(0, value)),
              passed: judgment.state === "matched",
              label: judgment.label,
              rationale: judgment.reason,
            },
    };
    if (judgment.state === "errored") score.error = judgment.reason;
    else if (score.score === null) score.reason = judgment.reason;
    return score;
  });
  const values = scores.flatMap((s) => (s.score ? [s.score.value] : []));
  const report: CaseReport = {
    caseId: record.caseId,
    verdict: record.verdict,
    passed: record.verdict === "passed",
    meanValue: values.length ? values.reduce((a, b) => a + b, 0) / values.length : null,
    partial: values.length > 0 && values.length < scores.length,
    scores,
    record,
  };
  if (record.error) report.error = `${record.error.where}: ${record.error.message}`;
  else if (record.verdict === "errored") report.error = erroredScorers(scores);
  if ("output" in record) report.output = record.output;
  return report;
}

/** A case errored by its scorers alone: which ones, and why. */
function erroredScorers(scores: readonly CaseScore[]): string {
  return scores
    .filter((score) => score.error !== undefined)
    .map((score) => {
      const judgment = { label: score.scorerId, reason: score.error ?? "" };
      return namesItsScorer(judgment)
        ? judgment.reason
        : `scorer "${score.scorerId}": ${judgment.reason}`;
    })
    .join("; ");
}
