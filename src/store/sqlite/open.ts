import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  readSync,
  statSync,
} from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { NiceevalError } from "../../errors.js";
import { type StoreAdvice, sentence, storeAdvice } from "../advice.js";
import { APPLICATION_ID, migrate, readSchemaVersion, SCHEMA_VERSION } from "./schema.js";

const SQLITE_HEADER = "SQLite format 3\0";
/** Keep runs elsewhere, or move the file away: what to do with a file niceeval will not use. */
const elsewhere = (advice: StoreAdvice) => `${sentence(advice.otherFile)}, or move this one away`;

/**
 * The error thrown for a store file that cannot be used; the file is left exactly as it was.
 * `advice` words what to do for whoever opened the store (the CLI's flags or code's functions).
 */
export function storeFileError(
  code: "STORE_NOT_NICEEVAL" | "STORE_CORRUPT" | "STORE_TOO_NEW" | "STORE_UNREADABLE",
  path: string,
  why: string,
  advice: StoreAdvice,
  cause?: unknown,
): NiceevalError {
  const what = {
    STORE_NOT_NICEEVAL: `${path} is not a niceeval store (${why}); niceeval does not write to it.`,
    STORE_CORRUPT: `${path} is a damaged SQLite database (${why}); niceeval does not write to it.`,
    STORE_TOO_NEW: `${path} was written by a newer niceeval (${why}); this version does not migrate it back. Upgrade niceeval, or`,
    STORE_UNREADABLE: `cannot open the store ${path} (${why}).`,
  }[code];
  const fix =
    code === "STORE_TOO_NEW"
      ? `${advice.otherFile}, or move this one away`
      : code === "STORE_CORRUPT"
        ? `Restore it from a copy, or move it away; meanwhile ${advice.otherFile}, or ${advice.noStore}`
        : elsewhere(advice);
  return new NiceevalError(code, `${what} ${fix}.`, cause === undefined ? undefined : { cause });
}

/** Whether a better-sqlite3 error says the file or its folder cannot be written. */
function isReadOnly(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^SQLITE_(READONLY|CANTOPEN)/.test(code);
}

/**
 * The error for a store SQLite cannot write beside (`STORE_READ_ONLY`): even a reader needs its
 * journal's files next to it. {@link openReadableDatabase} reads a copy instead.
 */
function readOnlyError(path: string, error: unknown, advice: StoreAdvice): NiceevalError {
  return new NiceevalError(
    "STORE_READ_ONLY",
    `cannot write to the store ${path}: it or its folder is read-only (${(error as Error).message}), and niceeval keeps a store's journal beside it. Make it writable, or ${advice.writableFolder}; ${advice.readCopy}.`,
    { cause: error },
  );
}

/**
 * Refuse a store file this process may not write (`STORE_READ_ONLY`): SQLite would open it to
 * read only without a word, and a run's first write would fail after the run had started.
 */
function checkWritable(path: string, advice: StoreAdvice): void {
  try {
    accessSync(path, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EACCES" || code === "EPERM" || code === "EROFS")
      throw readOnlyError(path, error, advice);
  }
}

/** SQLite stayed busy past the busy timeout: another process holds the store. */
export function busyError(
  path: string,
  busyTimeoutMs: number,
  advice: StoreAdvice,
  cause: unknown,
): NiceevalError {
  return new NiceevalError(
    "STORE_BUSY",
    `the store ${path} stayed locked by another process for more than ${busyTimeoutMs} ms. ${advice.busy}.`,
    { cause },
  );
}

/** Whether a better-sqlite3 error is the disk's (SQLITE_FULL, SQLITE_IOERR…), not the database's. */
export function isDiskError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^SQLITE_(FULL|IOERR)/.test(code);
}

/** The I/O failures of a write that did not fit: a full disk, or past the file size limit. */
const NO_ROOM = /^SQLITE_(FULL|IOERR_(SHMSIZE|WRITE|FSYNC|TRUNCATE))$/;

/**
 * The error for a store whose file or journal SQLite could not use: `STORE_NO_ROOM` for a write
 * that did not fit (even a reader of a WAL store makes a shared-memory file beside it, so a full
 * disk fails every command's open), `STORE_IO` for the rest (a journal deleted while a process
 * wrote to it, which then reads short, or a failing disk).
 */
export function diskError(path: string, error: unknown, advice: StoreAdvice): NiceevalError {
  const { message, code } = error as { message: string; code: string };
  if (NO_ROOM.test(code))
    return new NiceevalError(
      "STORE_NO_ROOM",
      `cannot use the store ${path}: SQLite could not write in it or beside it (${message}, ${code}); the disk holding it may be full, or this process past its file size limit (ulimit -f). Free space there, or ${advice.otherFile}.`,
      { cause: error },
    );
  return new NiceevalError(
    "STORE_IO",
    `cannot use the store ${path}: SQLite could not read it with its journal (${message}, ${code}); its -wal file may have been deleted or replaced while a process wrote to it, or the disk is failing. Once no process uses the store, retry (SQLite then reads the file alone); meanwhile ${advice.otherFile}.`,
    { cause: error },
  );
}

/** Make the folder a new store goes in, saying what stood in the way when it cannot be made. */
function makeFolderOf(path: string, advice: StoreAdvice): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (error) {
    const { message, code } = error as { message: string; code?: string };
    const why =
      code === "EEXIST" || code === "ENOTDIR"
        ? "a file is where a folder of its path should be; move that file, or"
        : code === "ENOSPC" || code === "EDQUOT"
          ? "the disk holding it is full; free space there, or"
          : "is the folder above it writable? If not,";
    throw new NiceevalError(
      "STORE_UNREADABLE",
      `cannot create the folder of the store ${path} (${message}): ${why} ${advice.writableFolder}.`,
      { cause: error },
    );
  }
}

export const isBusy = (error: unknown): boolean =>
  (error as { code?: unknown } | null)?.code === "SQLITE_BUSY";

/** Whether a better-sqlite3 error says the file is damaged or not a database. */
export function isCorruption(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^SQLITE_(CORRUPT|NOTADB)/.test(code);
}

/** Whether an error is SQLite's own (a damaged page, a busy file), not one of the values read. */
export function isSqliteError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_");
}

/** Reject a non-empty file that does not start with SQLite's header, before SQLite touches it. */
function checkHeader(path: string, advice: StoreAdvice): void {
  let size: number;
  try {
    const stat = statSync(path);
    if (stat.isDirectory())
      throw new NiceevalError(
        "STORE_UNREADABLE",
        `the store path ${path} is a folder; ${advice.fileIn(path)}.`,
      );
    // A device or a pipe (/dev/null meant as "no store"): SQLite would fail on it with an I/O error.
    if (!stat.isFile())
      throw new NiceevalError(
        "STORE_UNREADABLE",
        `the store path ${path} is not a file (a device, a pipe or a socket); ${advice.otherFile}, or ${advice.noStore} to store nothing.`,
      );
    size = stat.size;
  } catch (error) {
    if (error instanceof NiceevalError) throw error;
    return; // a new store
  }
  if (size === 0) return;
  const header = Buffer.alloc(16);
  const fd = openSync(path, "r");
  try {
    readSync(fd, header, 0, 16, 0);
  } finally {
    closeSync(fd);
  }
  if (header.toString("latin1") !== SQLITE_HEADER)
    throw storeFileError("STORE_NOT_NICEEVAL", path, "it is not a SQLite database", advice);
}

/**
 * Thrown by {@link openDatabase} to a reader (`toRead`) of a store this niceeval would have to
 * upgrade first: a reader never changes a store (an older niceeval may still write to it), so
 * {@link openDatabaseToRead} reads an upgraded copy instead.
 */
export class OlderSchemaError extends Error {
  constructor(
    readonly path: string,
    readonly version: number,
  ) {
    super(`${path} has schema version ${version}, this niceeval reads ${SCHEMA_VERSION}`);
  }
}

/** Options of {@link openDatabase}. */
export interface OpenDatabaseOptions {
  /**
   * The connection's page cache, MiB (default 64: reads of a 100,000-attempt run stay in memory
   * instead of going through SQLite's 2 MB).
   */
  cacheMiB?: number;
  /**
   * Only to read: the file must exist, and is neither upgraded ({@link OlderSchemaError}) nor
   * switched to another journal mode; one this process may not write is `STORE_READ_ONLY`, as
   * for a writer.
   */
  toRead?: boolean;
  /** How its errors word what to do: for the CLI or for code (default: code). */
  advice?: StoreAdvice;
}

/**
 * Open the database at `path` (creating it unless `toRead`) and bring its schema up to date.
 * Every check reads only; nothing is written until the file is known to be an empty or niceeval
 * database of this version or older.
 */
export function openDatabase(
  path: string,
  busyTimeoutMs: number,
  { cacheMiB = 64, toRead = false, advice = storeAdvice(undefined) }: OpenDatabaseOptions = {},
): Database.Database {
  const existed = existsSync(path);
  if (toRead && !existed)
    throw new NiceevalError(
      "STORE_NOT_FOUND",
      `no store at ${path}: no run has been stored there yet. ${advice.createFirst}.`,
    );
  if (!existed) makeFolderOf(path, advice);
  checkHeader(path, advice);
  // A reader too: SQLite would read a file it may not write in place, making its -wal and -shm
  // with the file's mode (0444), and the owner's writes, once the file is writable again, fail
  // on them; {@link openDatabaseToRead} reads a copy instead.
  if (existed) checkWritable(path, advice);
  let db: Database.Database;
  try {
    db = new Database(path, { timeout: busyTimeoutMs });
  } catch (error) {
    if (!existed)
      throw new NiceevalError(
        "STORE_UNREADABLE",
        `cannot create the store ${path} (${(error as Error).message}); is its folder writable? ${sentence(advice.writableFolder)}.`,
        { cause: error },
      );
    if (isReadOnly(error)) throw readOnlyError(path, error, advice);
    throw storeFileError("STORE_UNREADABLE", path, (error as Error).message, advice, error);
  }
  try {
    const { tables, version } = readIdentity(db, path, advice);
    if (toRead && version < SCHEMA_VERSION) throw new OlderSchemaError(path, version);
    // A writer first reads where its writes go, so damage there refuses the store now, before a
    // run starts its cases; a reader finds damage where it reads, and reads the rest.
    if (!toRead && tables > 0) probeTrees(db);
    // Switching a new file to WAL needs it alone for a moment; another process creating the same
    // store at once gets SQLITE_BUSY without SQLite's busy wait, so wait here instead.
    if (!toRead) retryWhileBusy(() => db.pragma("journal_mode = WAL"), busyTimeoutMs);
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    db.pragma(`cache_size = ${-cacheMiB * 1024}`);
    db.pragma("mmap_size = 268435456");
    if (version < SCHEMA_VERSION)
      try {
        migrate(db);
      } catch (error) {
        if (isCorruption(error)) throw error;
        throw new NiceevalError(
          "STORE_MIGRATION_FAILED",
          `cannot upgrade the store ${path} from schema version ${version} to ${SCHEMA_VERSION} (${(error as Error).message}); the step that failed was rolled back. ${elsewhere(advice)}.`,
          { cause: error },
        );
      }
    return db;
  } catch (error) {
    db.close();
    if (error instanceof NiceevalError || error instanceof OlderSchemaError) throw error;
    if (isCorruption(error))
      throw storeFileError("STORE_CORRUPT", path, (error as Error).message, advice, error);
    if (isReadOnly(error)) throw readOnlyError(path, error, advice);
    if (isBusy(error)) throw busyError(path, busyTimeoutMs, advice, error);
    if (isDiskError(error)) throw diskError(path, error, advice);
    throw error;
  }
}

/**
 * What the file at `path` holds, read before anything is written: its table count and schema
 * version; refused when it is damaged, another application's database or of a newer niceeval.
 */
function readIdentity(
  db: Database.Database,
  path: string,
  advice: StoreAdvice,
): { tables: number; version: number } {
  let applicationId: number;
  let tables: number;
  try {
    // Both read in one transaction: another process creating this store at once commits its
    // application_id and its first tables together, so they are seen together or not at all.
    [applicationId, tables] = db.transaction((): [number, number] => [
      db.pragma("application_id", { simple: true }) as number,
      (
        db.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table'").get() as {
          n: number;
        }
      ).n,
    ])();
  } catch (error) {
    if (isCorruption(error))
      throw storeFileError("STORE_CORRUPT", path, (error as Error).message, advice, error);
    throw error;
  }
  if (applicationId !== 0 && applicationId !== APPLICATION_ID)
    throw storeFileError(
      "STORE_NOT_NICEEVAL",
      path,
      `a SQLite database of another application, application_id ${applicationId}`,
      advice,
    );
  if (tables > 0 && applicationId !== APPLICATION_ID)
    throw storeFileError(
      "STORE_NOT_NICEEVAL",
      path,
      "a SQLite database of another application",
      advice,
    );
  const version = tables > 0 ? readSchemaVersion(db) : 0;
  if (version > SCHEMA_VERSION)
    throw storeFileError(
      "STORE_TOO_NEW",
      path,
      `schema version ${version}, this niceeval reads up to ${SCHEMA_VERSION}`,
      advice,
    );
  return { tables, version };
}

/**
 * Read the first entry of every table and index, and the last row of every rowid table: their
 * root pages and the paths to their first and last leaves, which every run's writes go through
 * (a new run's row and attempts go at the end). Damage there throws SQLite's SQLITE_CORRUPT
 * now. About 1 ms (20 ms from a cold disk) on a store of 100,000 attempts, where
 * `PRAGMA quick_check`, which reads every page, takes 80 to 300 ms (1.4 s cold) and grows
 * with the store; damage deeper in is found by the write that reaches it (the run stops then).
 * A query SQLite cannot plan this way (a partial index) is left out.
 */
function probeTrees(db: Database.Database): void {
  const trees = db
    .prepare(
      "SELECT type, name, tbl_name AS tbl FROM sqlite_schema WHERE type IN ('table', 'index') AND rootpage > 0",
    )
    .all() as { type: "table" | "index"; name: string; tbl: string }[];
  const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;
  for (const { type, name, tbl } of trees) {
    const reads =
      type === "table"
        ? [
            `SELECT 1 FROM ${quoted(name)} NOT INDEXED LIMIT 1`,
            `SELECT max(rowid) FROM ${quoted(name)}`,
          ]
        : [`SELECT 1 FROM ${quoted(tbl)} INDEXED BY ${quoted(name)} LIMIT 1`];
    for (const sql of reads)
      try {
        db.prepare(sql).get();
      } catch (error) {
        // A WITHOUT ROWID table has no rowid, a partial index no plan without its WHERE.
        if (isCorruption(error) || isBusy(error)) throw error;
      }
  }
}

/** Run `work` again while SQLite answers SQLITE_BUSY, for up to `timeoutMs`. */
function retryWhileBusy<T>(work: () => T, timeoutMs: number): T {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      return work();
    } catch (error) {
      if (!isBusy(error) || performance.now() > deadline) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}
