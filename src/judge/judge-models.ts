// The judge models a judge, a driver or a scorer was built with, kept on it so a run can record
// them (the eval's fingerprint and the manifest's `judgeModels`): a changed model then shows in
// `compare` and refuses `--resume`. A JudgeFn or CloseQAJudge of the user's own carries none: the
// model it calls is known only when it calls it.

import type { Driver } from "../tool/tool.js";

// Shared by every copy of niceeval a process loads: an eval file's judge may come from another.
const JUDGE_MODELS = Symbol.for("niceeval.judgeModels");

/**
 * Give `value` (a judge function, a driver, a scorer) the judge models it calls, and return it.
 * `value` must not be frozen; the property is not enumerable, so it changes no copy or equality.
 */
export function withJudgeModels<T extends object>(value: T, models: Iterable<string>): T {
  const list = sortedModels(models);
  if (list.length > 0) Object.defineProperty(value, JUDGE_MODELS, { value: list });
  return value;
}

/** The judge models `value` was built with: sorted, each once; none when unknown. */
export function judgeModelsOf(value: unknown): readonly string[] {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return [];
  const models = (value as Record<symbol, unknown>)[JUDGE_MODELS];
  return Array.isArray(models) ? (models as string[]) : [];
}

/** Model strings sorted, each once, empty ones left out. */
export function sortedModels(models: Iterable<string>): string[] {
  return [...new Set([...models].filter((m) => typeof m === "string" && m !== ""))].sort();
}

/** `driver` as one that records the judge models of `judge` (the same driver when they are unknown). */
export function judgingDriver(driver: Driver, judge: unknown): Driver {
  const models = judgeModelsOf(judge);
  return models.length === 0 ? driver : Object.freeze(withJudgeModels({ ...driver }, models));
}

/** An eval's judge models as they are shown (compare, --resume): sorted, each once, "none" without any. */
export function modelList(models: readonly string[] | undefined): string {
  return sortedModels(models ?? []).join(", ") || "none";
}
