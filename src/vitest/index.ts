/** niceeval/vitest: evaluations written as Vitest tests, run on the niceeval engine. */

export {
  createScorer,
  type Extra,
  type NamedScore,
  type NamedScore as Score,
  type NamedScorer,
  type RuntimeContext,
  type ScoreResult,
  type Scorer,
  type ScorerArgs,
  type ScorerConfig,
} from "../scorers/create-scorer.js";
export { type WrapScorerOptions, wrapScorer } from "../scorers/wrap-scorer.js";
export type { Aggregation } from "./aggregate.js";
export {
  type DataItem,
  type EvaluateData,
  type EvaluateOptions,
  evaluate,
  type TaskArgs,
} from "./evaluate.js";
export type { ItemOutcome, ItemScore } from "./outcome.js";
export type { ScoreFunction } from "./score-function.js";
