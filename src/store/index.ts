export { type CompareOptions, compareRuns } from "../compare/compare-runs.js";
export { formatComparison, formatComparisonMarkdown } from "../compare/format.js";
export type {
  CaseChange,
  ComparabilityWarning,
  Comparison,
  ComparisonStats,
  EvalComparison,
  RegressionDecision,
} from "../compare/types.js";
export { openStore } from "./open-store.js";
export { openPostgresStore, type PostgresStoreOptions } from "./postgres/index.js";
export { MIN_RUN_PREFIX, resolveRunRef } from "./resolve.js";
export { openSqliteStore, type SqliteStoreOptions } from "./sqlite/index.js";
export {
  type AttemptPage,
  type AttemptQuery,
  type BeginRunOptions,
  type EvalManifest,
  isTruncated,
  type RunEnd,
  type RunListQuery,
  type RunManifest,
  type RunStatus,
  type RunTotals,
  type Store,
  type StoredRun,
  type TruncatedValue,
} from "./types.js";
