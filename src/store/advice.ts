import { NiceevalError } from "../errors.js";
import type { RunOrigin } from "../eval/run-origin.js";

/**
 * What a store's errors tell their reader to do instead, in the words of whoever opened it: the
 * CLI's flags (`--store`, `--no-store`, `NICEEVAL_STORE`), or the functions code called
 * (`openStore`, `openSqliteStore`, `openPostgresStore`), as the timeout messages name
 * `--timeout` or the `timeoutMs` of the run (eval/run-origin.ts). Each is a clause that fits
 * after a comma or a semicolon.
 */
export interface StoreAdvice {
  /** Whose words these are. */
  readonly origin: RunOrigin;
  /** Keep runs in another SQLite file. */
  readonly otherFile: string;
  /** A store path in a folder that can be written. */
  readonly writableFolder: string;
  /** The path of a file in the folder given instead of a store path. */
  fileIn(folder: string): string;
  /** Go on without a store. */
  readonly noStore: string;
  /** How a store in a read-only place can still be read. */
  readonly readCopy: string;
  /** Another store when this one stayed locked. */
  readonly busy: string;
  /** A store that does not exist yet, opened to read. */
  readonly createFirst: string;
  /** Another PostgreSQL database. */
  readonly otherDatabase: string;
  /** Fix a PostgreSQL store's URL, or keep runs in a SQLite file. */
  readonly fixUrl: string;
  /** Where a store location came from, for a message that names it. */
  readonly givenAs: string;
  /** Take over a run whose writer seems alive. */
  readonly force: string;
  /** Read, and resume a run in, the copy saved of a store file deleted or replaced mid-write. */
  rescued(copy: string, run: string): string;
  /** Where a reader finds the ids of the runs a store holds, given one it does not. */
  readonly listRuns: string;
}

const CLI: StoreAdvice = {
  origin: "cli",
  otherFile: "pass --store <other path> to keep runs in another file",
  writableFolder: "pass --store <a path in a folder you can write to>",
  fileIn: (folder) =>
    `give --store the path of a file in it (for example ${folder}/niceeval.sqlite)`,
  noStore: "run with --no-store",
  readCopy: "commands that only read a store (runs, show, compare, view, export) read a copy of it",
  busy: "Retry, or pass --store <other path>",
  createFirst:
    "`niceeval run` creates it; to read another store pass --store <path> or set NICEEVAL_STORE",
  otherDatabase: "pass --store with another database",
  fixUrl: "fix --store or NICEEVAL_STORE, or pass --store <path> to keep runs in a SQLite file",
  givenAs: "--store or NICEEVAL_STORE",
  force: "pass --force",
  rescued: (copy, run) =>
    `pass --store ${copy} to read it, and \`niceeval run --resume ${run} --store ${copy}\` to continue the run there`,
  listRuns:
    "`niceeval runs` lists the runs it holds (with the same --store, if one was given), with their ids",
};

const CODE: StoreAdvice = {
  origin: "code",
  otherFile: "open another path (openStore, openSqliteStore) to keep runs in another file",
  writableFolder: "open a path in a folder you can write to (openStore, openSqliteStore)",
  fileIn: (folder) =>
    `give openStore the path of a file in it (for example ${folder}/niceeval.sqlite)`,
  noStore: "run without a store",
  readCopy: "a store opened to read only (openStore(path, { readOnly: true })) is read from a copy",
  busy: "Retry, give openSqliteStore a longer busyTimeoutMs, or open another path (openStore, openSqliteStore)",
  createFirst: "Open it to write (not readOnly) to create it",
  otherDatabase: "open another database (openStore, openPostgresStore)",
  fixUrl:
    "fix the URL given to openStore (or openPostgresStore), or open the path of a SQLite file to keep runs there",
  givenAs: "given to openStore",
  force: "pass beginRun { resume: true, force: true }",
  rescued: (copy, run) =>
    `open ${copy} (openStore, openSqliteStore) to read it or resume run ${run} there`,
  listRuns: "listRuns() lists the runs it holds, with their ids",
};

/** The advice for a store opened by `origin` (undefined: code). */
export function storeAdvice(origin: RunOrigin | undefined): StoreAdvice {
  return origin === "cli" ? CLI : CODE;
}

/**
 * The error for a run id a store does not hold (`RUN_NOT_FOUND`), said of the store `where`: a
 * write is told to begin the run first; a read, which beginning a run would not answer (nor could
 * a store opened to read only), where the ids of the stored runs are listed.
 */
export function runNotFound(
  runId: string,
  where: string,
  advice: StoreAdvice,
  to: "read" | "write",
): NiceevalError {
  const fix = to === "write" ? "call beginRun first" : advice.listRuns;
  return new NiceevalError("RUN_NOT_FOUND", `no run ${runId} in ${where}; ${fix}.`);
}

/** A clause of advice as a sentence's start. */
export const sentence = (clause: string): string =>
  clause.charAt(0).toUpperCase() + clause.slice(1);
