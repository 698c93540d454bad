// The `niceeval` entry: definitions, the runner and reports.

// ── Scorers ──────────────────────────────────────────────────────────────────
// The root entry also carries every scorer, so one import serves a whole eval file.
export * from "./scorers/index.js";

// ── Errors ───────────────────────────────────────────────────────────────────
export {
  AuthoringError,
  NiceevalError,
  ToolInputError,
  ToolNotImplementedError,
  ToolOutputError,
} from "./errors.js";

// ── Score evals (adapters) ───────────────────────────────────────────────────
export {
  closeQADefaults,
  defineAdapter,
  type Adapter,
  type AdapterCreateContext,
  type AdapterDefinition,
  type AssertionHandle,
  type AssertionTools,
  type CheckFn,
  type CloseQAMaterial,
  type CloseQAOptions,
  type EvalRunOptions,
  type ScoreEval,
  type ScoreEvalDefinition,
  type TestContext,
  type TestTools,
  type UsageMaterial,
  type UsageReport,
} from "./adapter/index.js";

// ── Vitest bridge (hooks injected; no Vitest import) ────────────────────────
export {
  toVitest,
  type ExpectApi,
  type ToVitestOptions,
  type VitestHooks,
  type VitestTestContext,
} from "./eval/to-vitest.js";

// ── Result model ─────────────────────────────────────────────────────────────
export type {
  AppUsage,
  AttemptRecord,
  JudgeUsage,
  Judgment,
  JudgmentState,
  NumericEvidence,
  ScoreSummary,
  Verdict,
} from "./eval/record.js";
export { type AttemptContext, type CaseSpec, isRunnable, type Runnable } from "./eval/runnable.js";
// ── Dataset suites ───────────────────────────────────────────────────────────
export {
  type BoundScorer,
  bindScorer,
  type CaseSource,
  defineSuite,
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
export { decideVerdict, summarizeScore } from "./eval/summarize.js";
// ── Judges ───────────────────────────────────────────────────────────────────
export {
  type CloseQAAnswer,
  type CloseQAJudge,
  type JsonObject,
  type JsonValue,
  type JudgeFn,
  type JudgeVerdict,
  jsonValueSchema,
  judgeVerdictSchema,
} from "./judge/types.js";
export { type ConsoleReporterOptions, consoleReporter } from "./report/console-reporter.js";
export { jsonReporter } from "./report/json-reporter.js";
export type { EvalInfo, Reporter } from "./report/reporter.js";
export {
  EVAL_EVENT_SCHEMA,
  type EvalEvent,
  type EvalEventKind,
  type EvalSummary,
} from "./runner/events.js";
// ── Runner, telemetry and reports ────────────────────────────────────────────
export { type RunEntry, type RunOptions, type RunSummary, runEvals } from "./runner/run.js";
export {
  type CaseReport,
  type CaseScore,
  type EvalReport,
  type RunEvalOptions,
  runEval,
} from "./runner/run-eval.js";
export { type ArrayTelemetry, arrayTelemetry, type Telemetry } from "./runner/telemetry.js";
export { type Score, scoreSchema } from "./score/score.js";
// ── Tools ────────────────────────────────────────────────────────────────────
export {
  type Driver,
  defineDriver,
  defineTool,
  implementTool,
  type RunToolOptions,
  runTool,
  type Tool,
  type ToolContext,
  type ToolImplementation,
} from "./tool/index.js";
