import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { NiceevalError } from "../errors.js";
import { isPostgresUrl, redactUrl } from "./postgres/connection.js";
import type { Store } from "./types.js";

/**
 * Open the store at a location: a `postgres://` or `postgresql://` URL is a PostgreSQL
 * database; a `file://` URL or anything not a URL is a SQLite file path, relative to `cwd`
 * (default: the process's); another URL is refused (`STORE_LOCATION`).
 * Each backend, and its driver, loads only when a store of its kind is opened.
 * @example
 * const store = await openStore(".niceeval/niceeval.sqlite");
 * const comparison = await compareRuns(store, baseId, headId);
 */
export async function openStore(
  location: string,
  options: {
    cwd?: string | undefined;
    /**
     * Only read (writes are refused); the store is never created or upgraded: a SQLite file that
     * is not there, or a PostgreSQL database without niceeval's schema, is `STORE_NOT_FOUND`. A
     * SQLite store in a read-only file or folder, or an older niceeval's, is read from a private
     * copy; an older niceeval's PostgreSQL schema is read as it is.
     */
    readOnly?: boolean | undefined;
  } = {},
): Promise<Store> {
  if (isPostgresUrl(location)) {
    const { openPostgresStore } = await import("./postgres/index.js");
    return openPostgresStore(location, options.readOnly ? { readOnly: true } : {});
  }
  const { openSqliteStore } = await import("./sqlite/index.js");
  const path = resolve(options.cwd ?? process.cwd(), storePath(location));
  return openSqliteStore(path, options.readOnly ? { readOnly: true } : { appendThread: true });
}

/**
 * A store location as `openStore` reads it: a PostgreSQL URL as it is, a `file://` URL as its
 * path, any other path as it is. Any other URL is a typo or another database, not a file name (a
 * file named after it would put its password in a folder name and report green on nothing): it
 * throws `STORE_LOCATION`.
 */
export function storePath(location: string): string {
  if (isPostgresUrl(location) || !/^[a-z][a-z0-9+.-]*:\/\//i.test(location)) return location;
  if (/^file:\/\//i.test(location)) {
    try {
      return fileURLToPath(location);
    } catch (error) {
      throw new NiceevalError(
        "STORE_LOCATION",
        `store ${location} (--store or NICEEVAL_STORE) is not a file URL of this machine (${(error as Error).message}); write file:///absolute/path.sqlite, or give a path`,
      );
    }
  }
  throw new NiceevalError(
    "STORE_LOCATION",
    `store ${redactUrl(location)} (--store or NICEEVAL_STORE): niceeval keeps runs in PostgreSQL (postgres:// or postgresql://) or in a SQLite file; fix the URL's scheme, or give a file path`,
  );
}
