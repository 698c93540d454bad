export { type CompareOptions, compareRuns } from "../compare/compare-runs.js";
export { formatComparison, formatComparisonMarkdown } from "../compare/format.js";
export type {
  CaseChange,
  CaseSide,
  ChangeKind,
  ComparabilityWarning,
  Comparison,
  ComparisonStats,
  ErroredCases,
  EvalComparison,
  JudgmentChange,
  JudgmentSide,
  LeftOut,
  LeftOutAttempt,
  NoInterval,
  PassRateComparison,
  PassRateTest,
  RegressionDecision,
  RunRef,
  ScoreComparison,
  Side,
  TooFewToDetect,
  Transitions,
  TrialRange,
} from "../compare/types.js";
export type { Interval } from "../stats/interval.js";
export type { McNemarResult } from "../stats/mcnemar.js";
export type { PairedDifference } from "../stats/paired.js";
export type { SignFlipTest } from "../stats/sign-flip.js";
export type {
  TrialPermutationMethod,
  TrialPermutationTest,
} from "../stats/trial-permutation.js";
export { type OpenStoreOptions, openStore } from "./open-store.js";
export { openPostgresStore, type PostgresStoreOptions } from "./postgres/index.js";
export { MIN_RUN_PREFIX, resolveRunRef } from "./resolve.js";
export { openSqliteStore, type SqliteStoreOptions } from "./sqlite/index.js";
export {
  type AttemptKey,
  type AttemptPage,
  type AttemptQuery,
  type BeginRunOptions,
  type EvalManifest,
  isTruncated,
  type ReplacedAttempt,
  type ResumeMark,
  type RunEnd,
  type RunListQuery,
  type RunManifest,
  type RunStatus,
  type RunTotals,
  type Store,
  type StoredRun,
  type TruncatedValue,
} from "./types.js";
