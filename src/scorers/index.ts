// The `niceeval/scorers` entry: every scorer.

// ── Named scorers (createScorer / wrapScorer) ────────────────────────────────
export {
  createScorer,
  wrapScorer,
  type Extra,
  type ForeignScorer,
  type NamedScore,
  type RuntimeContext,
  type Scorer,
  type ScorerArgs,
  type ScorerConfig,
  type ScoreResult,
} from "./create-scorer.js";

// ── Score shape and tools ────────────────────────────────────────────────────
export { scoreSchema, type Score } from "../score/score.js";
export { defineDriver, defineTool, implementTool, runTool } from "../tool/index.js";
