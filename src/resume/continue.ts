import { existsSync } from "node:fs";
import { hostname } from "node:os";
import { resolve } from "node:path";
import type { RunArgs } from "../cli/args.js";
import { storedRunArgs } from "../cli/args.js";
import type { CliIO } from "../cli/io.js";
import { assertStoreExists, openStoreAt, storeLocation } from "../cli/store.js";
import { NiceevalError } from "../errors.js";
import type { AttemptRecord } from "../eval/record.js";
import { pluralNoun } from "../plural.js";
import type { RunOptions } from "../runner/run.js";
import type { BeginRunOptions, RunManifest, Store, StoredRun } from "../store/types.js";
import { writerGone } from "../store/writer.js";
import { changesSince, listChanges, refuseChanges } from "./check.js";
import { findRunToContinue, flagOf, type ResumeMode, runState } from "./find.js";
import { continuedRun, type KeptAttempts, keptAttempts } from "./source.js";

/** A stored run about to be continued, and the run arguments it continues with. */
export interface Continuation {
  mode: ResumeMode;
  run: StoredRun;
  /**
   * This invocation's arguments with the run's own files, filter, trials, shard and timeout, and
   * its concurrency, hang timeout, grace, judge cache and gates where this invocation gives none.
   */
  args: RunArgs;
  /** The options it takes from the run, as flags ("--concurrency 2"), for its note on stderr. */
  own: string[];
}

/** What the run needs to continue: how the store sink begins and what it skips, and the source. */
export interface ContinuedRun {
  begin: BeginRunOptions;
  /** The attempts read back from the store instead of running (their `attemptKey`s). */
  kept: ReadonlySet<string>;
  skip(record: AttemptRecord): boolean;
  withSource(options: RunOptions): RunOptions;
  /**
   * Stored attempts kept for cases the evals no longer give (their dataset changed since the
   * run started): read once the run has ended; they stay in the store and count in its totals.
   */
  unreached(): number;
  /**
   * What the continuation says it does (what it keeps, runs again, takes from its run): said once
   * the run is taken over, so one refused then (another process took it first) says none of it.
   */
  notes: string;
}

/**
 * Find the run `--resume` / `--retry-errors` names (or the latest one that fits) and the
 * arguments it started with: its eval files from its manifest, and its filter, trials, shard
 * and timeout from its stored command line, and its --concurrency, --hang-timeout, --grace,
 * --no-cache and gates (--min-pass-rate, --min-score, --strict) unless this invocation gives
 * them. Reporters, the store, --queue and --no-supervise are this invocation's.
 */
export async function findContinuation(args: RunArgs, io: CliIO): Promise<Continuation> {
  const mode = args.resume!.mode;
  const location = storeLocation(args.store, io.env);
  assertStoreExists(location, io.cwd);
  const store = await openStoreAt(location, io.cwd);
  let run: StoredRun;
  try {
    run = await findRunToContinue(store, mode, args.resume!.run, args.force === true);
  } finally {
    await store.close();
  }
  const next: RunArgs = { ...args, paths: run.files.map((f) => resolve(io.cwd, f.path)) };
  const missing = run.files.filter((f) => !existsSync(resolve(io.cwd, f.path))).map((f) => f.path);
  if (missing.length > 0)
    throw new NiceevalError("USAGE", missingFiles(run, missing, io.cwd, flagOf(mode)));
  const original = storedRunArgs(run.command);
  // The run's trials: the flag as it was given (absent, an eval's own trials are not "overridden"
  // and nothing warns that the flag does not apply to them).
  if (original === undefined) next.trials = run.trials;
  else if (original.trials !== undefined) next.trials = original.trials;
  else delete next.trials;
  const given = original as Record<string, unknown> | undefined;
  const set = next as unknown as Record<string, unknown>;
  // The options that define which attempts the run holds and how long each may take.
  // A retry's own --timeout wins: attempts that timed out get more time; a resume that finishes
  // a retry keeps the retry's.
  const retryTimeout = mode === "retry-errors" && args.timeoutMs !== undefined;
  for (const key of ["filter", "shard", "timeoutMs", "name"])
    if (given?.[key] !== undefined && !(key === "timeoutMs" && retryTimeout)) set[key] = given[key];
  const retried =
    mode === "resume" ? run.resumes?.findLast((m) => m.mode === "retry-errors") : undefined;
  if (retried?.timeoutMs !== undefined) next.timeoutMs = retried.timeoutMs;
  const own: string[] = [];
  // --concurrency counts the jobs enqueued on a queue, attempts at once without one. The
  // manifest says the run was queued even when NICEEVAL_QUEUE, not its command line, queued it.
  const wasQueued = run.queued === true || original?.queue !== undefined;
  const sameKind = wasQueued === (args.queue !== undefined);
  // How it ran (attempts at once, the hang limit, the grace after a signal, the judge cache),
  // unless this invocation gives them: a continuation runs as the run did (a --concurrency that
  // keeps a rate-limited API within its limit stays).
  for (const key of ["concurrency", "hangTimeoutMs", "graceMs"] as const) {
    if (!args.defaulted.includes(key)) continue;
    if (original && !original.defaulted.includes(key) && sameKind) {
      next[key] = original[key];
      own.push(`${OWN_FLAGS[key]} ${original[key]}`);
    } else if (original === undefined && key === "concurrency" && sameKind) {
      // A command line that no longer parses: the concurrency its manifest records.
      next.concurrency = run.concurrency;
    }
  }
  if (original?.cache === false) {
    next.cache = false;
    own.push("--no-cache");
  }
  // Its gates, unless this invocation gives its own: the exit code is an uninterrupted run's.
  for (const key of ["minPassRate", "minScore", "strict"] as const)
    if (next[key] === undefined && original?.[key] !== undefined) {
      set[key] = original[key];
      own.push(key === "strict" ? "--strict" : `${OWN_FLAGS[key]} ${original[key]}`);
    }
  for (const key of ["filter", "trials", "shard", "timeoutMs"] as const) {
    const value = next[key];
    if (value === undefined || (key === "timeoutMs" && retryTimeout)) continue;
    const shown = typeof value === "object" ? `${value.index}/${value.count}` : value;
    own.push(`${OWN_FLAGS[key]} ${shown}`);
  }
  return { mode, run, args: next, own };
}

/** The flags of the options a continuation takes from its run, for its note. */
const OWN_FLAGS = {
  filter: "--filter",
  trials: "--trials",
  shard: "--shard",
  timeoutMs: "--timeout",
  concurrency: "--concurrency",
  hangTimeoutMs: "--hang-timeout",
  graceMs: "--grace",
  minPassRate: "--min-pass-rate",
  minScore: "--min-score",
} as const;

/**
 * What a continuation says it does: how many stored attempts it keeps and which run again; a
 * retry of a run that stopped also runs the attempts the run never started.
 */
function continuationNote(
  run: StoredRun,
  mode: ResumeMode,
  kept: KeptAttempts,
  retrying: boolean,
): string {
  const id = run.runId.slice(0, 8);
  const count = (n: number, noun: string) => `${n.toLocaleString("en")} ${pluralNoun(n, noun)}`;
  const others = `${count(kept.keys.size, "other")} ${kept.keys.size === 1 ? "is" : "are"} kept`;
  if (retrying)
    return `niceeval: resuming run ${id}, which stopped while retrying its errored attempts: ${count(kept.retried, "errored or cut off attempt")} run again, ${others}; the rest run\n`;
  if (mode === "resume")
    return `niceeval: resuming run ${id}: ${count(kept.keys.size, "attempt")} already stored ${kept.keys.size === 1 ? "is" : "are"} kept (and reported again); the rest run\n`;
  const retried =
    kept.retried === 1 ? "the errored attempt" : `the ${count(kept.retried, "errored attempt")}`;
  const unstarted =
    runState(run) === "stopped"
      ? ", and the attempts it never started (it stopped before its end) run too"
      : "";
  return `niceeval: retrying ${retried} of run ${id}; ${others}${unstarted}\n`;
}

/** The options a continuation takes from its run's command line, and which it may give itself. */
function ownOptionsNote(run: StoredRun, own: readonly string[]): string {
  return `niceeval: run ${run.runId.slice(0, 8)} keeps its own ${own.join(" ")} (from its command line; a --concurrency, --hang-timeout, --grace, --min-pass-rate, --min-score or --strict given here wins)\n`;
}

/** That the run's errors outside any case stay with the continuation, and why. */
function keptRunErrorsNote(count: number): string {
  const [errors, stay, fail, them] =
    count === 1 ? ["error", "stays", "fails", "it"] : [`${count} errors`, "stay", "fail", "them"];
  return `niceeval: the run's ${errors} in user code that belonged to no case ${stay} with it and ${fail} it: what caused ${them} is not run again (a new run starts without ${them})\n`;
}

/**
 * Check the evals against the run's (refused with `RUN_CHANGED` naming them, unless `--force`),
 * mark the manifest (writer, resume mark, forced changes), and read the keys of the stored
 * attempts the run keeps. `current` is the manifest of the eval files as they are now; it
 * becomes the run's with its id. Says nothing: its `notes` are for once the run is taken over.
 */
export async function continueRun(
  continuation: Continuation,
  store: Store,
  current: RunManifest,
  force: boolean,
): Promise<ContinuedRun> {
  const { run, mode } = continuation;
  const changes = changesSince(run, current);
  if (changes.length && !force) refuseChanges(run.runId, flagOf(mode), changes);
  // A stopped run that a --retry-errors had reopened stopped while retrying: resuming it finishes
  // that retry (a finished run is reopened only by one, so the latest is the one that stopped).
  const retrying = mode === "resume" && (run.resumes ?? []).some((m) => m.mode === "retry-errors");
  const kept = await keptAttempts(store, run.runId, retrying ? "retry-errors" : mode);
  const timeoutMs = mode === "retry-errors" ? continuation.args.timeoutMs : undefined;
  current.resumes = [
    {
      at: new Date().toISOString(),
      mode,
      kept: kept.keys.size,
      ...(changes.length ? { changes } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    },
  ];
  if (changes.length) current.resumedWithChanges = changes;
  let notes = continuationNote(run, mode, kept, retrying);
  if (continuation.own.length > 0) notes += ownOptionsNote(run, continuation.own);
  const outside = run.runErrors?.length ?? 0;
  if (outside > 0) notes += keptRunErrorsNote(outside);
  if (changes.length)
    notes += `niceeval: --force: continuing although its evals changed: ${listChanges(changes, 5)}\n`;
  if (force) notes += liveWriter(run) ?? "";
  const continued = continuedRun(store, run.runId, kept);
  return {
    begin: {
      resume: true,
      ...(force ? { force: true } : {}),
      ...(kept.unread.length > 0 ? { retire: kept.unread } : {}),
    },
    kept: kept.keys,
    skip: continued.fromStore,
    // Errors that belonged to no attempt stay the run's: what caused them is not run again.
    withSource: (options) =>
      continued.withSource(
        run.runErrors?.length ? { ...options, earlierRunErrors: run.runErrors } : options,
      ),
    unreached: continued.unreached,
    notes,
  };
}

/**
 * Why a continuation cannot start when eval files of its run are not found from this folder:
 * they are named from the folder the run started in, which this may not be; or, when the run's
 * other files are found here, it is, and these were deleted or moved since.
 */
function missingFiles(run: StoredRun, missing: string[], cwd: string, flag: string): string {
  const named = `${missing.slice(0, 3).join(", ")}${missing.length > 3 ? ` and ${missing.length - 3} more` : ""} ${missing.length === 1 ? "is" : "are"} not found from ${cwd}`;
  const head = `${flag}: run ${run.runId.slice(0, 8)}'s eval files are named from the folder it started in, and ${named}`;
  if (missing.length < run.files.length)
    return `${head}, where its other eval files are: ${missing.length === 1 ? "it was" : "they were"} deleted or moved since the run started. Put ${missing.length === 1 ? "it" : "them"} back to continue the run (a run continues only with the eval files it started with), or start a new run.`;
  return `${head}. Run ${flag} from that folder; or, if ${missing.length === 1 ? "the file was" : "the files were"} deleted or moved since the run started, put ${missing.length === 1 ? "it" : "them"} back (a run continues only with the eval files it started with) or start a new run.`;
}

/**
 * What a forced continuation says when the run's writer is a live process of this host: --force
 * takes its word that the writer is gone (a pid may have been reused), but one still writing
 * the run would run its remaining cases too, each paid for twice.
 */
function liveWriter(run: StoredRun): string | undefined {
  const writer = run.writer;
  if (
    run.status !== "running" ||
    !writer ||
    writer.host !== hostname() ||
    writer.pid === process.pid ||
    writerGone(run)
  )
    return undefined;
  return `niceeval: --force: the run's writer (pid ${writer.pid} on ${writer.host}) is still a live process; if it is still writing this run, both will run its remaining cases. Stop it (kill ${writer.pid}) unless that pid is another program now\n`;
}
