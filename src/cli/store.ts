import { resolve } from "node:path";
import { NiceevalError } from "../errors.js";
import { openSqliteStore } from "../store/sqlite/index.js";
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

/** Open the store at a location; a path is a SQLite file, relative to cwd. */
export async function openStoreAt(location: string, cwd: string): Promise<Store> {
  if (/^postgres(ql)?:\/\//i.test(location)) {
    throw new NiceevalError(
      "USAGE",
      `--store ${redact(location)}: PostgreSQL stores are not available in this version; pass a SQLite file path`,
    );
  }
  return openSqliteStore(resolve(cwd, location));
}

/** A connection string without its password, for messages. */
function redact(location: string): string {
  return location.replace(/\/\/([^:@/]+):[^@/]*@/, "//$1:***@");
}
