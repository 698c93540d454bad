import { createCloseQAJudge } from "./close-qa.js";
import { judgeSettings } from "./config.js";
import type { CloseQAJudge } from "./types.js";

let defaultCloseQA: CloseQAJudge | undefined;
let fromModel: { model: string; judge: CloseQAJudge } | undefined;

/** Set (or clear) the judge that t.closeQA uses when an eval names none. */
export function setDefaultCloseQAJudge(judge: CloseQAJudge | undefined): void {
  defaultCloseQA = judge;
}

/**
 * The configured closeQA judge, or undefined (then closeQA is unavailable: judge-unconfigured).
 * Order: setDefaultCloseQAJudge, then configureJudges({ closeQAModel }), then NICEEVAL_JUDGE_MODEL.
 */
export function resolveCloseQAJudge(): CloseQAJudge | undefined {
  if (defaultCloseQA) return defaultCloseQA;
  const model = judgeSettings().closeQAModel ?? process.env.NICEEVAL_JUDGE_MODEL;
  if (!model) return undefined;
  if (fromModel?.model !== model) fromModel = { model, judge: createCloseQAJudge(model) };
  return fromModel.judge;
}
