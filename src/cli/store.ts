import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { NiceevalError } from "../errors.js";
import { openStoreFor, storePath } from "../store/open-store.js";
import { isPostgresUrl, redactUrl } from "../store/postgres/connection.js";
import type { Store } from "../store/types.js";

/** Where runs are stored when neither --store nor NICEEVAL_STORE says otherwise. */
export const DEFAULT_STORE_PATH = ".niceeval/niceeval.sqlite";

/** The store a command names: --store, else $NICEEVAL_STORE, else the default file. */
export function storeLocation(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): string {
  return storePath(flag ?? (env.NICEEVAL_STORE || DEFAULT_STORE_PATH), "cli");
}

/** Where {@link storeLocation} took the store from, for a message: the flag, the variable, or neither. */
export function storeSource(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): string {
  if (flag !== undefined) return "--store";
  return env.NICEEVAL_STORE ? "NICEEVAL_STORE" : "the default store";
}

/**
 * Open the store a command names, relative to the command's folder; `readOnly` for a command
 * that only reads it (then a store in a read-only place is read from a copy, and nothing is
 * created or upgraded: a PostgreSQL database without niceeval's schema is `STORE_NOT_FOUND`).
 */
export async function openStoreAt(location: string, cwd: string, readOnly = false): Promise<Store> {
  try {
    return await openStoreFor("cli", location, { cwd, readOnly });
  } catch (error) {
    if (!readOnly || absentPostgresStore(location, error) === undefined) throw error;
    throw new NiceevalError(
      "STORE_NOT_FOUND",
      `no store in ${redactUrl(location)}: the database has no niceeval tables, so no run has been stored there yet. \`niceeval run\` creates them; to read another store pass --store <path or URL> or set NICEEVAL_STORE.`,
      { cause: error },
    );
  }
}

/**
 * The store location to name, when `error` says a PostgreSQL database has no niceeval store (a
 * reading command found nothing and created nothing); otherwise undefined.
 */
export function absentPostgresStore(location: string, error: unknown): string | undefined {
  return isPostgresUrl(location) &&
    error instanceof NiceevalError &&
    error.code === "STORE_NOT_FOUND"
    ? redactUrl(location)
    : undefined;
}

/** Whether the store exists: a PostgreSQL URL is taken to, a SQLite file must be there. */
export function storeExists(location: string, cwd: string): boolean {
  return isPostgresUrl(location) || existsSync(resolve(cwd, location));
}

/**
 * Throws `STORE_NOT_FOUND` when a command that only reads runs names a SQLite file that does not
 * exist: a mistyped --store must not create an empty store and report "no run".
 */
export function assertStoreExists(location: string, cwd: string): void {
  if (storeExists(location, cwd)) return;
  const path = resolve(cwd, location);
  throw new NiceevalError(
    "STORE_NOT_FOUND",
    `no store at ${path}: no run has been stored there yet. \`niceeval run\` creates it; to read another store pass --store <path> or set NICEEVAL_STORE.`,
  );
}
