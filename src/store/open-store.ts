import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { NiceevalError } from "../errors.js";
import type { RunOrigin } from "../eval/run-origin.js";
import type { KnownKeys } from "../known-keys.js";
import { storeAdvice } from "./advice.js";
import { checkOpenOptions } from "./open-options.js";
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
export async function openStore(location: string, options: OpenStoreOptions = {}): Promise<Store> {
  checkOpenOptions("openStore", options, openStoreKeys);
  return openStoreFor("code", location, options);
}

/** Options of {@link openStore}. */
export interface OpenStoreOptions {
  /** The folder a relative SQLite path is resolved from (default: the process's). */
  cwd?: string | undefined;
  /**
   * Only read (writes are refused); the store is never created or upgraded: a SQLite file that
   * is not there, or a PostgreSQL database without niceeval's schema, is `STORE_NOT_FOUND`. A
   * SQLite store in a read-only file or folder, or an older niceeval's, is read from a private
   * copy; an older niceeval's PostgreSQL schema is read as it is.
   */
  readOnly?: boolean | undefined;
}

const openStoreKeys = { cwd: true, readOnly: true } satisfies KnownKeys<OpenStoreOptions>;

/**
 * {@link openStore} for a caller: the CLI's errors advise its flags (`--store`, `--no-store`),
 * code's the functions it calls (advice.ts).
 */
export async function openStoreFor(
  origin: RunOrigin,
  location: string,
  options: OpenStoreOptions = {},
): Promise<Store> {
  if (isPostgresUrl(location)) {
    const { openPostgresFor } = await import("./postgres/store.js");
    return openPostgresFor(origin, location, options.readOnly ? { readOnly: true } : {});
  }
  const { openSqliteFor } = await import("./sqlite/store.js");
  const path = resolve(options.cwd ?? process.cwd(), storePath(location, origin));
  return openSqliteFor(
    origin,
    path,
    options.readOnly ? { readOnly: true } : { appendThread: true },
  );
}

/**
 * A store location as `openStore` reads it: a PostgreSQL URL as it is, a `file://` URL as its
 * path, any other path as it is. Any other URL is a typo or another database, not a file name (a
 * file named after it would put its password in a folder name and report green on nothing): it
 * throws `STORE_LOCATION`, saying where the location came from (`origin`: the CLI's flag or code).
 */
export function storePath(location: string, origin: RunOrigin): string {
  const { givenAs } = storeAdvice(origin);
  if (location === "")
    throw new NiceevalError(
      "STORE_LOCATION",
      `the store's location (${givenAs}) is empty; give a file path or a postgres:// URL`,
    );
  if (isPostgresUrl(location) || !/^[a-z][a-z0-9+.-]*:\/\//i.test(location)) return location;
  if (/^file:\/\//i.test(location)) {
    const cut = /[#?].*$/s.exec(location)?.[0];
    if (cut !== undefined)
      throw new NiceevalError(
        "STORE_LOCATION",
        `store ${location} (${givenAs}): a file URL ends its path at # or ?, so it would name another file and drop ${JSON.stringify(cut)}; write # as %23 and ? as %3F, or give the path itself`,
      );
    try {
      return fileURLToPath(location);
    } catch (error) {
      throw new NiceevalError(
        "STORE_LOCATION",
        `store ${location} (${givenAs}) is not a file URL of this machine (${(error as Error).message}); write file:///absolute/path.sqlite, or give a path`,
      );
    }
  }
  throw new NiceevalError(
    "STORE_LOCATION",
    `store ${redactUrl(location)} (${givenAs}): niceeval keeps runs in PostgreSQL (postgres:// or postgresql://) or in a SQLite file; fix the URL's scheme, or give a file path`,
  );
}
