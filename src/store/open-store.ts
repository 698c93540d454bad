import { resolve } from "node:path";
import { isPostgresUrl } from "./postgres/connection.js";
import { readOnlyStore } from "./read-only.js";
import type { Store } from "./types.js";

/**
 * Open the store at a location: a `postgres://` or `postgresql://` URL is a PostgreSQL
 * database; anything else is a SQLite file path, relative to `cwd` (default: the process's).
 * Each backend, and its driver, loads only when a store of its kind is opened.
 * @example
 * const store = await openStore(".niceeval/niceeval.sqlite");
 * const comparison = await compareRuns(store, baseId, headId);
 */
export async function openStore(
  location: string,
  options: {
    cwd?: string;
    /**
     * Only read (writes are refused): a SQLite store in a read-only file or folder is then read
     * from a private copy.
     */
    readOnly?: boolean;
  } = {},
): Promise<Store> {
  if (isPostgresUrl(location)) {
    const { openPostgresStore } = await import("./postgres/index.js");
    const store = await openPostgresStore(location);
    return options.readOnly ? readOnlyStore(store) : store;
  }
  const { openSqliteStore } = await import("./sqlite/index.js");
  const path = resolve(options.cwd ?? process.cwd(), location);
  return openSqliteStore(path, options.readOnly ? { readOnly: true } : { appendThread: true });
}
