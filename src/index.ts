// biome-ignore-all assist/source/organizeImports: sections are ordered for readers, not by path
// The `niceeval` entry: definitions, the runner and reports.

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

// ── Scorers ──────────────────────────────────────────────────────────────────
// The root entry also carries every scorer, so one import serves a whole eval file.
export * from "./scorers/index.js";

// ── Runner, telemetry and reports ────────────────────────────────────────────
export { type RunEntry, type RunOptions, type RunSummary, runEvals } from "./runner/run.js";
export type { AttemptInfo, RunSink, RunStartInfo } from "./runner/sink.js";
export type { LoadError } from "./runner/summary.js";
export {
  type CaseReport,
  type CaseScore,
  type EvalReport,
  type RunEvalOptions,
  runEval,
} from "./runner/run-eval.js";
export { type ArrayTelemetry, arrayTelemetry, type Telemetry } from "./runner/telemetry.js";
export { type OtelSinkOptions, otelSink } from "./otel/index.js";
export {
  EVAL_EVENT_SCHEMA,
  type EvalEvent,
  type EvalEventKind,
  type EvalSummary,
} from "./runner/events.js";
export type { EvalInfo, Reporter } from "./report/reporter.js";
export { consoleReporter, type ConsoleReporterOptions } from "./report/console-reporter.js";
export { type ComparedReportOptions, jsonReporter } from "./report/json-reporter.js";
export { type Score, scoreSchema } from "./score/score.js";

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
export type { AppUsageTotals } from "./eval/app-usage-totals.js";
export { type AttemptContext, type CaseSpec, isRunnable, type Runnable } from "./eval/runnable.js";

// ── Vitest bridge (hooks injected; no Vitest import) ────────────────────────
export {
  toVitest,
  type ExpectApi,
  type ToVitestOptions,
  type VitestHooks,
  type VitestTestContext,
} from "./eval/to-vitest.js";

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
  type ToolSchema,
} from "./tool/index.js";

// ── Judges ───────────────────────────────────────────────────────────────────
export {
  ANTHROPIC_VERSION,
  anthropicModelId,
  anthropicProvider,
  callJudge,
  closeAnswerStores,
  configureJudges,
  createCloseQAJudge,
  DEFAULT_MAX_AUDIT_BYTES,
  isJudgeUnavailable,
  JUDGE_CACHE_VERSION,
  JudgeCallError,
  JudgeUnavailableError,
  judgeFromModel,
  judgeSettings,
  jsonValueSchema,
  judgeVerdictSchema,
  openAICompatibleProvider,
  recordJudgeUsage,
  registerJudgeProvider,
  resetJudgeConfig,
  resolveCloseQAJudge,
  resolveJudge,
  setDefaultCloseQAJudge,
  withJudgeLedger,
  type AnthropicOptions,
  type CloseQAAnswer,
  type CloseQAJudge,
  type JsonObject,
  type JsonValue,
  type JudgeAnswerSchema,
  type JudgeCallResult,
  type JudgeChatRequest,
  type JudgeChatResponse,
  type JudgeTokens,
  type JudgeFn,
  type JudgeMessage,
  type JudgePrice,
  type JudgeProvider,
  type JudgeSettings,
  type JudgeSource,
  type JudgeUnavailableKind,
  type JudgeVerdict,
  type OpenAICompatibleOptions,
  type ResolvedJudge,
} from "./judge/index.js";

// ── Errors ───────────────────────────────────────────────────────────────────
export {
  AuthoringError,
  NiceevalError,
  ToolInputError,
  ToolNotImplementedError,
  ToolOutputError,
} from "./errors.js";
