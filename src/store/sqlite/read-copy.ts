import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type Database from "better-sqlite3";
import { errorMessage, NiceevalError } from "../../errors.js";
import type { Store } from "../types.js";
import { openDatabase } from "./open.js";

/** A store opened to read only: its connection, and the private copy it reads, if any. */
export interface ReadableDatabase {
  db: Database.Database;
  /** The file the connection reads: the store's, or its copy. */
  file: string;
  /** The temporary folder holding the copy, if one is read (removed on close). */
  copy?: string;
}

/**
 * Open a store to read it. One that SQLite cannot use where it is (a read-only file or folder,
 * such as a mounted CI artifact: even a reader needs its journal's files beside it) is read
 * from a private copy of its files in a temporary folder, as it was when it was copied.
 */
export function openDatabaseToRead(path: string, busyTimeoutMs: number): ReadableDatabase {
  try {
    return { db: openDatabase(path, busyTimeoutMs), file: path };
  } catch (error) {
    if (!(error instanceof NiceevalError) || error.code !== "STORE_READ_ONLY") throw error;
    const copy = mkdtempSync(join(tmpdir(), "niceeval-store-"));
    try {
      const file = join(copy, basename(path));
      copyFileSync(path, file);
      // Commits still in the journal: SQLite takes them in when it opens the copy.
      if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${file}-wal`);
      return { db: openDatabase(file, busyTimeoutMs), file, copy };
    } catch (copyError) {
      rmSync(copy, { recursive: true, force: true });
      throw new NiceevalError(
        "STORE_READ_ONLY",
        `${error.message} Reading a copy of it failed too (${errorMessage(copyError)}).`,
        { cause: copyError },
      );
    }
  }
}

/**
 * `store`, opened to read only: a write is refused (it would go to the copy and be lost), and
 * closing it removes the copy it read.
 */
export function readOnlyStore(store: Store, path: string, copy: string | undefined): Store {
  const refuse = (): Promise<never> =>
    Promise.reject(
      new NiceevalError(
        "STORE_READ_ONLY",
        `the store ${path} was opened to read only; open it without readOnly to write runs to it.`,
      ),
    );
  return {
    location: `sqlite:${path}`,
    beginRun: refuse,
    appendAttempts: refuse,
    finishRun: refuse,
    listRuns: (...args) => store.listRuns(...args),
    getRun: (...args) => store.getRun(...args),
    streamAttempts: (...args) => store.streamAttempts(...args),
    queryAttempts: (...args) => store.queryAttempts(...args),
    attemptKeys: (...args) => store.attemptKeys(...args),
    attemptHistory: (...args) => store.attemptHistory(...args),
    async close() {
      try {
        await store.close();
      } finally {
        if (copy) rmSync(copy, { recursive: true, force: true });
      }
    },
  };
}
