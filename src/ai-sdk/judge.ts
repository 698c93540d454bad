import type { LanguageModel } from "ai";
import { createCloseQAJudge } from "../judge/close-qa.js";
import { judgeFromModel } from "../judge/judge-from-model.js";
import type { CloseQAJudge, JudgeFn } from "../judge/types.js";
import { aiSdkJudgeProvider, aiSdkModelName, refuseNotAModel } from "./provider.js";

/**
 * Turn any AI SDK `LanguageModel` into a {@link JudgeFn} for `llmJudge` and the style scorers.
 * Calls go through niceeval's scheduler, retries, disk cache and usage ledger.
 * @example
 * import { openai } from "@ai-sdk/openai";
 * const judge = judgeFromAiSdk(openai("gpt-4.1-mini"));
 * @throws AuthoringError when `model` is not a model (the provider itself, undefined).
 */
export function judgeFromAiSdk(model: LanguageModel): JudgeFn {
  refuseNotAModel("judgeFromAiSdk", model);
  return judgeFromModel({ provider: aiSdkJudgeProvider(model), model: aiSdkModelName(model) });
}

/**
 * A t.closeQA judge backed by an AI SDK model; pass it to setDefaultCloseQAJudge.
 * @example
 * setDefaultCloseQAJudge(closeQAFromAiSdk(anthropic("claude-haiku-4-5")));
 * @throws AuthoringError when `model` is not a model (the provider itself, undefined).
 */
export function closeQAFromAiSdk(model: LanguageModel): CloseQAJudge {
  refuseNotAModel("closeQAFromAiSdk", model);
  return createCloseQAJudge({ provider: aiSdkJudgeProvider(model), model: aiSdkModelName(model) });
}
