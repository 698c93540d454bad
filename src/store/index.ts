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
