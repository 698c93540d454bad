// biome-ignore-all assist/source/organizeImports: sections are ordered for readers, not by path
// The `niceeval/scorers` entry: every scorer.

// ── Score shape and tools ────────────────────────────────────────────────────
export { type Score, scoreSchema } from "../score/score.js";
export { defineDriver, defineTool, implementTool, runTool } from "../tool/index.js";
// ── Named scorers (createScorer / wrapScorer) ────────────────────────────────
export {
  createScorer,
  type Extra,
  type NamedScore,
  type NamedScorer,
  type RuntimeContext,
  runtimeContext,
  type ScoreFn,
  type ScoreResult,
  type Scorer,
  type ScorerArgs,
  type ScorerConfig,
  ScorerResultError,
} from "./create-scorer.js";
export { type WrappableScorer, type WrapScorerOptions, wrapScorer } from "./wrap-scorer.js";

// ── Deterministic scorers ────────────────────────────────────────────────────
export {
  type AgentRun,
  type CompiledJsonSchema,
  calls,
  compileJsonSchema,
  type Draft,
  type FormatMode,
  type JsonSchemaCheck,
  type JsonSchemaOptions,
  type JsonSchemaScore,
  jsonSchemaScoreSchema,
  KNOWN_FORMATS,
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
  type RegexMatchInput,
  regexMatch,
  regexMatchImpl,
  regexMatchTool,
  standardSchemaValid,
  type ToolCall,
} from "./deterministic/index.js";

// ── Style scorers ────────────────────────────────────────────────────────────
export {
  bulletsRatio,
  computeTextStats,
  cosineToCentroid,
  EmbeddingDimensionError,
  extractLexicon,
  firstPersonRatio,
  lexiconHitRateImpl,
  lexiconHitRateTool,
  makeOutlineFidelityDriver,
  makeStyleEmbeddingDriver,
  makeStylePairwiseDriver,
  meanSentenceLength,
  openAiEmbed,
  outlineFidelityTool,
  pairwiseWinRate,
  parseVerdict,
  questionRate,
  splitSentences,
  styleEmbeddingTool,
  stylePairwiseTool,
  styleScorersProvider,
  textStatsImpl,
  textStatsTool,
  type EmbedFn,
  type ExtractLexiconOptions,
  type LengthBand,
  type MakeStyleEmbeddingDriverOptions,
  type OpenAiEmbedOptions,
  type OutlineFidelityInput,
  type PairwiseVerdict,
  type PairwiseWinner,
  type PairwiseWinRateResult,
  type StyleEmbeddingInput,
  type StylePairwiseInput,
  type TextStats,
} from "./style/index.js";

// ── Model-judged scorers ─────────────────────────────────────────────────────
export {
  expectations,
  llmJudge,
  llmJudgeTool,
  makeLlmJudgeDriver,
  verdictToScore,
  type ExpectedOutcome,
  type LlmJudgeBinding,
  type LlmJudgeBindingOptions,
  type LlmJudgeInput,
  type MakeLlmJudgeDriverOptions,
} from "./judged/index.js";
export { judgeFromModel } from "../judge/judge-from-model.js";

// ── Judge seam shared by model-backed scorers ────────────────────────────────
export {
  jsonValueSchema,
  judgeVerdictSchema,
  type JsonObject,
  type JsonValue,
  type JudgeFn,
  type JudgeVerdict,
} from "../judge/types.js";
