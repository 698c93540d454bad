// Where a command's reports go, told apart by the file each path names rather than by how it is
// spelled: `r.json` and `link/r.json` (a symlink to it), `-` and `/dev/stdout`, a report and the
// run store or an eval file. A report opened on a file another report, the store or the run's
// own code lives in would garble it or wipe it (SQLite's file truncated under its open mapping
// takes the process down with SIGBUS and the store's history with it).
import { fstatSync, realpathSync, type Stats, statSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { NiceevalError } from "../errors.js";
import { isPostgresUrl } from "../store/postgres/connection.js";

/** Who holds standard output unless `ndjson=-` takes it. */
export const CONSOLE = "the console report";

/** The files beside a SQLite store that are its own (its write-ahead log, its shared memory). */
const STORE_SIDE_FILES = ["", "-wal", "-shm", "-journal"];

/**
 * The destinations of one command: each report claims its file, which must not be one another
 * report claimed or one that is protected (the store, an eval file).
 */
export class ReportTargets {
  /** Who holds each file, under each of its keys ({@link fileKeys}). */
  readonly #held = new Map<string, { who: string; what: string }>();
  readonly #cwd: string;
  readonly #stdoutFd: number;

  constructor(cwd: string, stdoutFd: number) {
    this.#cwd = cwd;
    this.#stdoutFd = stdoutFd;
  }

  /** Files no report may write: `what` says what they are ("the run store s.sqlite (--store)"). */
  protect(paths: readonly string[], what: string): void {
    for (const path of paths)
      for (const key of fileKeys(resolve(this.#cwd, path))) this.#held.set(key, { who: "", what });
  }

  /**
   * The run store, a SQLite file with the files beside it (a PostgreSQL URL has none here);
   * `source` says where it was named (`--store`, `NICEEVAL_STORE`, the default store).
   */
  protectStore(location: string | undefined, source: string): void {
    if (location === undefined || isPostgresUrl(location)) return;
    const paths = STORE_SIDE_FILES.map((suffix) => location + suffix);
    this.protect(paths, `the run store ${location} (${source})`);
  }

  /**
   * Claim `target` (a path, or with `dash` `-` for standard output, as `ndjson=-` means it; a
   * file report's `-` is a file of that name) for `who` (the flag that asked for it); throws
   * USAGE when another report or a protected file is there. Standard output discarded
   * (/dev/null) is claimed by nobody: any number of reports may go there.
   */
  claim(target: string, who: string, dash = true): void {
    const out = dash && target === "-";
    const keys = out ? fdKeys(this.#stdoutFd) : fileKeys(resolve(this.#cwd, target));
    const shown = out ? "standard output" : target;
    const before = keys.map((key) => this.#held.get(key)).find((held) => held !== undefined);
    if (before === undefined) {
      for (const key of keys) this.#held.set(key, { who, what: shown });
      return;
    }
    if (before.who === "")
      throw new NiceevalError(
        "USAGE",
        `${who} would write ${shown}, which is ${before.what}: writing a report there would destroy it. Give the report a file of its own`,
      );
    const same = before.what === shown ? shown : `${before.what} (${shown})`;
    // Standard output held by the console report can be had: ndjson=- moves the console to stderr.
    const advice =
      before.who === CONSOLE
        ? "; for records on standard output, pass --reporter ndjson=-, which moves the console report to stderr"
        : "";
    throw new NiceevalError(
      "USAGE",
      `${who} and ${before.who} both write ${same}; one would overwrite or garble the other. Give each report a file of its own${advice}`,
    );
  }
}

/**
 * What a path names: its real path (symlinks followed; for a file not made yet, its real folder
 * and its name), and its device and inode when it exists, so a file is found under any name and
 * as a descriptor writes it. None for /dev/null, which any number of writers may share.
 */
function fileKeys(path: string): string[] {
  let stat: Stats;
  try {
    stat = statSync(path);
  } catch {
    try {
      return [resolve(realpathSync(dirname(path)), basename(path))];
    } catch {
      return [path];
    }
  }
  const inode = statKey(stat);
  if (inode === undefined) return [];
  // A pipe or a device has no real path of its own (/dev/stdout leads to "pipe:[…]").
  if (!stat.isFile() && !stat.isDirectory()) return [inode];
  try {
    return [inode, realpathSync(path)];
  } catch {
    return [inode];
  }
}

/** What descriptor `fd` writes to, as {@link fileKeys} names files. */
function fdKeys(fd: number): string[] {
  try {
    const inode = statKey(fstatSync(fd));
    return inode === undefined ? [] : [inode];
  } catch {
    return [`fd:${fd}`];
  }
}

function statKey(stat: Stats): string | undefined {
  if (stat.isCharacterDevice() && stat.rdev === nullDevice()) return undefined;
  return `${stat.dev}:${stat.ino}`;
}

let nullRdev: number | undefined;
/** The device number of /dev/null (-1 where there is none). */
function nullDevice(): number {
  if (nullRdev === undefined) {
    try {
      nullRdev = statSync("/dev/null").rdev;
    } catch {
      nullRdev = -1;
    }
  }
  return nullRdev;
}
