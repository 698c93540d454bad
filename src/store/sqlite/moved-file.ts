import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import type Database from "better-sqlite3";
import { NiceevalError } from "../../errors.js";
import type { StoreAdvice } from "../advice.js";

// A store file deleted or replaced while a connection writes to it: SQLite (in WAL mode) keeps
// writing to the file it opened, which no path names any more, and on close leaves its journal
// beside the path, where the file put there would read it as its own. A writer checks, before
// each write, that its path still names the file it opened (a stat, about a microsecond); once
// it does not, it saves what its connection still reads to a new file, empties its journal and
// writes no more.

/**
 * Save what `db` reads of its moved file to a new file beside `path` (in the temp folder when
 * that folder is gone too), then checkpoint its journal into the moved file and empty it, so the
 * journal left at the path holds nothing. Returns the copy's path, or undefined when no copy
 * could be written.
 */
export function rescueMoved(db: Database.Database, path: string): string | undefined {
  const name = `${basename(path).replace(/\.sqlite$/, "")}.rescued-${new Date().toISOString().replace(/[:.]/g, "-")}.sqlite`;
  let copy: string | undefined;
  for (const folder of [dirname(path), tmpdir()]) {
    try {
      db.prepare("VACUUM INTO ?").run(join(folder, name));
      copy = join(folder, name);
      break;
    } catch {}
  }
  try {
    db.pragma("wal_checkpoint(TRUNCATE)");
  } catch {}
  return copy;
}

/** The error of a write to a store whose file was deleted or replaced (`STORE_MOVED`). */
export function movedError(
  path: string,
  copy: string | undefined,
  advice: StoreAdvice,
  runId: string,
): NiceevalError {
  const what = `the store file ${path} was deleted or replaced by another file while niceeval wrote to it, so nothing more is written there`;
  const saved = copy
    ? `; what the deleted file held, this run's attempts so far included, is saved to ${copy}: ${advice.rescued(copy, runId.slice(0, 8))}`
    : "; what it held since could not be saved elsewhere either";
  return new NiceevalError("STORE_MOVED", `${what}${saved}.`);
}
