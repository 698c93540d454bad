// Model judges: the JudgeFn seam, providers and model strings, dependable calls, closeQA.

export { closeAnswerStores, JUDGE_CACHE_VERSION } from "./cache.js";
// ── Judges built on the providers ───────────────────────────────────────────
export { callJudge, type JudgeCallResult, type JudgeSource } from "./call.js";
export { JudgeCallError } from "./call-error.js";
export type {
  JudgeAnswerSchema,
  JudgeChatRequest,
  JudgeChatResponse,
  JudgeMessage,
  JudgeTokens,
} from "./chat.js";
export { createCloseQAJudge, DEFAULT_MAX_AUDIT_BYTES } from "./close-qa.js";
// ── Configuration and model strings ─────────────────────────────────────────
export {
  configureJudges,
  type JudgePrice,
  type JudgeSettings,
  judgeSettings,
  resetJudgeConfig,
} from "./config.js";
export { judgeFromModel } from "./judge-from-model.js";

// ── Usage ledger ────────────────────────────────────────────────────────────
export { recordJudgeUsage, withJudgeLedger } from "./ledger.js";
export {
  ANTHROPIC_VERSION,
  type AnthropicOptions,
  anthropicProvider,
} from "./providers/anthropic.js";
export {
  type OpenAICompatibleOptions,
  openAICompatibleProvider,
} from "./providers/openai-compatible.js";
// ── Providers ───────────────────────────────────────────────────────────────
export type { JudgeProvider } from "./providers/provider.js";
export { resolveCloseQAJudge, setDefaultCloseQAJudge } from "./registry.js";
export {
  anthropicModelId,
  type ResolvedJudge,
  registerJudgeProvider,
  resolveJudge,
} from "./resolve.js";
// ── The seam ────────────────────────────────────────────────────────────────
export {
  type CloseQAAnswer,
  type CloseQAJudge,
  type JsonObject,
  type JsonValue,
  type JudgeFn,
  type JudgeVerdict,
  jsonValueSchema,
  judgeVerdictSchema,
} from "./types.js";
export {
  isJudgeUnavailable,
  JudgeUnavailableError,
  type JudgeUnavailableKind,
} from "./unavailable.js";
