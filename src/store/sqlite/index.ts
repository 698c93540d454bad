export { openSqliteStore, type SqliteStoreOptions } from "./store.js";
