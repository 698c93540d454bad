// Model-judged scorers: expectations (seed 000) and eval.llm-judge (seed 002).

export { judgeFromModel } from "../../judge/judge-from-model.js";
export { type JudgeFn, type JudgeVerdict, judgeVerdictSchema } from "../../judge/types.js";
export { type ExpectedOutcome, expectations } from "./expectations.js";
export {
  type LlmJudgeBinding,
  type LlmJudgeBindingOptions,
  type LlmJudgeInput,
  llmJudge,
  llmJudgeTool,
  type MakeLlmJudgeDriverOptions,
  makeLlmJudgeDriver,
  verdictToScore,
} from "./llm-judge.js";
