import { processWide } from "../process-wide.js";
import { createCloseQAJudge } from "./close-qa.js";
import { judgeSettings } from "./config.js";
import { judgeEnvironment } from "./environment.js";
import { judgeModelsOf, sortedModels } from "./judge-models.js";
import { markJudgePossible } from "./ledger.js";
import type { CloseQAJudge } from "./types.js";

const state = processWide("judge.close-qa", () => ({
  defaultJudge: undefined as CloseQAJudge | undefined,
  fromModel: undefined as { model: string; judge: CloseQAJudge } | undefined,
}));

/** Set (or clear) the judge that t.closeQA uses when an eval names none. */
export function setDefaultCloseQAJudge(judge: CloseQAJudge | undefined): void {
  if (judge) markJudgePossible();
  state.defaultJudge = judge;
}

/**
 * The configured closeQA judge, or undefined (then closeQA is unavailable: judge-unconfigured).
 * Order: setDefaultCloseQAJudge, then configureJudges({ closeQAModel }), then NICEEVAL_JUDGE_MODEL.
 */
export function resolveCloseQAJudge(): CloseQAJudge | undefined {
  if (state.defaultJudge) return state.defaultJudge;
  const model = judgeSettings().closeQAModel ?? judgeEnvironment().NICEEVAL_JUDGE_MODEL;
  if (!model) return undefined;
  if (state.fromModel?.model !== model)
    state.fromModel = { model, judge: createCloseQAJudge(model) };
  return state.fromModel.judge;
}

/**
 * The models of the judges every eval of this process may use without naming one: the default
 * closeQA judge's (when createCloseQAJudge or closeQAFromAiSdk built it), and
 * configureJudges({ closeQAModel }) or NICEEVAL_JUDGE_MODEL.
 */
export function defaultJudgeModels(): string[] {
  const model = judgeSettings().closeQAModel ?? judgeEnvironment().NICEEVAL_JUDGE_MODEL;
  return sortedModels([...judgeModelsOf(state.defaultJudge), ...(model ? [model] : [])]);
}
