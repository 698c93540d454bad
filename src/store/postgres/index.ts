export { isPostgresUrl, redactUrl } from "./connection.js";
export { openPostgresStore, type PostgresStoreOptions } from "./store.js";
