import type { CloseQAJudge } from "./types.js";

let defaultCloseQA: CloseQAJudge | undefined;

/** Set (or clear) the judge that t.closeQA uses when an eval names none. */
export function setDefaultCloseQAJudge(judge: CloseQAJudge | undefined): void {
  defaultCloseQA = judge;
}

/** The configured closeQA judge, or undefined (then closeQA is unavailable: judge-unconfigured). */
export function resolveCloseQAJudge(): CloseQAJudge | undefined {
  return defaultCloseQA;
}
