// The `niceeval/scorers` entry: every scorer.

// ── Score shape and tools ────────────────────────────────────────────────────
export { type Score, scoreSchema } from "../score/score.js";
export { defineDriver, defineTool, implementTool, runTool } from "../tool/index.js";
// ── Named scorers (createScorer / wrapScorer) ────────────────────────────────
export {
  createScorer,
  type Extra,
  type ForeignScorer,
  type NamedScore,
  type RuntimeContext,
  type ScoreResult,
  type Scorer,
  type ScorerArgs,
  type ScorerConfig,
  wrapScorer,
} from "./create-scorer.js";

// ── Deterministic scorers ────────────────────────────────────────────────────
export {
  type AgentRun,
  type CompiledJsonSchema,
  calls,
  compileJsonSchema,
  type ExactMatchInput,
  type ExpectedCalls,
  evalScorersProvider,
  exactMatch,
  exactMatchImpl,
  exactMatchTool,
  type JsonSchema,
  type JsonSchemaObject,
  type JsonSchemaValidInput,
  jsonSchemaValid,
  jsonSchemaValidImpl,
  jsonSchemaValidTool,
  type LatencyBudgetInput,
  latencyBudget,
  latencyBudgetImpl,
  latencyBudgetTool,
  type Mark,
  type MinimalJsonSchema,
  REGEX_TIMEOUT_MS,
  type RegexMatchInput,
  regexMatch,
  regexMatchImpl,
  regexMatchTool,
  standardSchemaValid,
  type ToolCall,
} from "./deterministic/index.js";
