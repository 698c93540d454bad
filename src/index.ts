// The `niceeval` entry: definitions, the runner and reports.

// ── Dataset suites ───────────────────────────────────────────────────────────
export {
  bindScorer,
  defineSuite,
  type BoundScorer,
  type CaseSource,
  type EvalCase,
  type EvalSuite,
  type ScorerBinding,
  type ScorerMapArgs,
  type Suite,
  type SuiteDefinition,
  type SuiteScorer,
  type Target,
  type TypedEvalSuite,
} from "./eval/suite.js";

// ── Result model ─────────────────────────────────────────────────────────────
export type {
  AppUsage,
  AttemptRecord,
  Judgment,
  JudgmentState,
  JudgeUsage,
  NumericEvidence,
  ScoreSummary,
  Verdict,
} from "./eval/record.js";
export { decideVerdict, summarizeScore } from "./eval/summarize.js";
export { isRunnable, type AttemptContext, type CaseSpec, type Runnable } from "./eval/runnable.js";

// ── Runner, telemetry and reports ────────────────────────────────────────────
export { runEvals, type RunEntry, type RunOptions, type RunSummary } from "./runner/run.js";
export {
  runEval,
  type CaseReport,
  type CaseScore,
  type EvalReport,
  type RunEvalOptions,
} from "./runner/run-eval.js";
export {
  EVAL_EVENT_SCHEMA,
  type EvalEvent,
  type EvalEventKind,
  type EvalSummary,
} from "./runner/events.js";
export { arrayTelemetry, type ArrayTelemetry, type Telemetry } from "./runner/telemetry.js";
export type { EvalInfo, Reporter } from "./report/reporter.js";
export { consoleReporter, type ConsoleReporterOptions } from "./report/console-reporter.js";
export { jsonReporter } from "./report/json-reporter.js";

// ── Tools ────────────────────────────────────────────────────────────────────
export {
  defineDriver,
  defineTool,
  implementTool,
  runTool,
  type Driver,
  type RunToolOptions,
  type Tool,
  type ToolContext,
  type ToolImplementation,
} from "./tool/index.js";
export { scoreSchema, type Score } from "./score/score.js";

// ── Judges ───────────────────────────────────────────────────────────────────
export {
  jsonValueSchema,
  judgeVerdictSchema,
  type CloseQAAnswer,
  type CloseQAJudge,
  type JsonObject,
  type JsonValue,
  type JudgeFn,
  type JudgeVerdict,
} from "./judge/types.js";

// ── Errors ───────────────────────────────────────────────────────────────────
export {
  AuthoringError,
  NiceevalError,
  ToolInputError,
  ToolNotImplementedError,
  ToolOutputError,
} from "./errors.js";
