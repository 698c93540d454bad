import { chmodSync, copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type Database from "better-sqlite3";
import { errorMessage, NiceevalError } from "../../errors.js";
import { keepListener } from "../../process-listeners.js";
import type { StoreAdvice } from "../advice.js";
import { OlderSchemaError, openDatabase } from "./open.js";

/** A store opened to read only: its connection, and the private copy it reads, if any. */
export interface ReadableDatabase {
  db: Database.Database;
  /** The file the connection reads: the store's, or its copy. */
  file: string;
  /** Removes the copy, if one is read (once the connections to it are closed). */
  removeCopy?: () => void;
}

/** Copies are made in folders named after the process that reads them. */
const COPY_PREFIX = "niceeval-store-";

/**
 * Open a store to read it; it must exist, and is left as it is. One that SQLite cannot use where
 * it is (a read-only file or folder, such as a mounted CI artifact: even a reader needs its
 * journal's files beside it, and would leave them with the file's mode), or that an older
 * niceeval wrote and this one would have to upgrade, is read from a private copy of its files
 * in a temporary folder (upgraded there), as it was when it was copied. The copy is removed on
 * close or when the process exits; one left by a process killed outright is removed by the next
 * read of a copy.
 */
export function openDatabaseToRead(
  path: string,
  busyTimeoutMs: number,
  advice: StoreAdvice,
): ReadableDatabase {
  try {
    return { db: openDatabase(path, busyTimeoutMs, { toRead: true, advice }), file: path };
  } catch (error) {
    if (error instanceof OlderSchemaError) {
      const why = new NiceevalError("STORE_UNREADABLE", error.message);
      return openCopy(path, busyTimeoutMs, why, advice);
    }
    if (!(error instanceof NiceevalError) || error.code !== "STORE_READ_ONLY") throw error;
    return openCopy(path, busyTimeoutMs, error, advice);
  }
}

/** Read a copy of the store; `why`: what kept it from being read in place, said if that fails too. */
function openCopy(
  path: string,
  busyTimeoutMs: number,
  why: NiceevalError,
  advice: StoreAdvice,
): ReadableDatabase {
  removeOrphanCopies();
  let folder: string | undefined;
  let unkeep = () => {};
  const remove = () => {
    unkeep();
    if (folder) rmSync(folder, { recursive: true, force: true });
  };
  try {
    folder = mkdtempSync(join(tmpdir(), `${COPY_PREFIX}${process.pid}-`));
    unkeep = keepListener("exit", remove);
    const file = join(folder, basename(path));
    copyWritable(path, file);
    // Commits still in the journal: SQLite takes them in when it opens the copy.
    if (existsSync(`${path}-wal`)) copyWritable(`${path}-wal`, `${file}-wal`);
    try {
      return { db: openDatabase(file, busyTimeoutMs, { advice }), file, removeCopy: remove };
    } catch (error) {
      // What is wrong with the copy is wrong with the store: said of the store's own path.
      if (!(error instanceof NiceevalError)) throw error;
      throw new NiceevalError(error.code, error.message.replaceAll(file, path), { cause: error });
    }
  } catch (error) {
    remove();
    if (error instanceof NiceevalError) throw error;
    // The copy goes in the temporary folder: when that is what failed, it is what to fix.
    const inTemp = folder === undefined || String(errorMessage(error)).includes(tmpdir());
    throw new NiceevalError(
      why.code,
      `${why.message} Reading a copy of it failed too (${errorMessage(error)})${inTemp ? `: the copy goes in the temporary folder ${tmpdir()} (TMPDIR); make that writable, or point TMPDIR at a folder you can write to` : ""}.`,
      { cause: error },
    );
  }
}

/**
 * Copy a file, writable by this user alone: a copy keeps the mode of its file, and the copy of a
 * store of mode 0444 would be as read-only as the store.
 */
function copyWritable(from: string, to: string): void {
  copyFileSync(from, to);
  chmodSync(to, 0o600);
}

/** Remove the copies of processes that no longer run (killed before they could). */
function removeOrphanCopies(): void {
  let names: string[];
  try {
    names = readdirSync(tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(COPY_PREFIX)) continue;
    const pid = Number(name.slice(COPY_PREFIX.length).split("-")[0]);
    if (!Number.isInteger(pid) || pid <= 0 || isRunning(pid)) continue;
    rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as { code?: string }).code === "EPERM";
  }
}
