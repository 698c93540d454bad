import { resolve } from "node:path";
import { isPostgresUrl } from "../store/postgres/connection.js";
import type { Store } from "../store/types.js";

/** Where runs are stored when neither --store nor NICEEVAL_STORE says otherwise. */
export const DEFAULT_STORE_PATH = ".niceeval/niceeval.sqlite";

/** The store a command names: --store, else $NICEEVAL_STORE, else the default file. */
export function storeLocation(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): string {
  return flag ?? (env.NICEEVAL_STORE || DEFAULT_STORE_PATH);
}

/**
 * Open the store at a location: a `postgres://` or `postgresql://` URL is a PostgreSQL
 * database; anything else is a SQLite file path, relative to cwd.
 */
export async function openStoreAt(location: string, cwd: string): Promise<Store> {
  // Each backend (and its driver, native or not) loads only when a store of its kind is opened.
  if (isPostgresUrl(location)) {
    const { openPostgresStore } = await import("../store/postgres/index.js");
    return openPostgresStore(location);
  }
  const { openSqliteStore } = await import("../store/sqlite/index.js");
  return openSqliteStore(resolve(cwd, location));
}
