import { NiceevalError } from "../errors.js";
import { givenText } from "../eval/timeout.js";
import { redactUrl } from "../redact-url.js";
import { checkRunId, isoDateTime, runNameProblem } from "../run-fields.js";
import type { StoreAdvice } from "./advice.js";
import { checkManifestFields } from "./manifest-fields.js";
import { RUN_STATUSES } from "./run-list-query.js";
import type { RunEnd, RunManifest, RunStatus } from "./types.js";
import { writerGone } from "./writer.js";

/**
 * The manifest `beginRun` stores: its run id, name and start time checked, and the fields every
 * reader uses (`manifest-fields.ts`), each a USAGE error naming the field; the start time in UTC
 * as `toISOString` writes it (runs are listed, and `latest` found, by its text), and no password
 * in its command line.
 */
export function writableManifest(given: RunManifest): RunManifest {
  if (typeof given !== "object" || given === null)
    throw new NiceevalError(
      "USAGE",
      `beginRun: the manifest must be an object (the run's RunManifest), got ${given === null ? "null" : typeof given}`,
    );
  checkRunId(
    given.runId,
    "beginRun: manifest.runId",
    "give each run an id of its own (runEvals makes one: its summary's runId)",
  );
  const nameProblem = typeof given.name === "string" ? runNameProblem(given.name) : undefined;
  if (nameProblem !== undefined)
    throw new NiceevalError(
      "USAGE",
      `beginRun: manifest.name ${nameProblem}; give the run a name that can be typed to refer to it`,
    );
  const startedAt = isoDateTime(given.startedAt, "beginRun: manifest.startedAt");
  checkManifestFields(given);
  return withoutCredentials(startedAt === given.startedAt ? given : { ...given, startedAt });
}

/**
 * `end` as `finishRun` stores it: its status one a run ends with, its summaries a list, its time
 * a number, `endedAt` checked and in UTC like a run's start; else a USAGE error naming the field.
 */
export function writableEnd(end: RunEnd): RunEnd {
  if (typeof end !== "object" || end === null || Array.isArray(end))
    throw new NiceevalError(
      "USAGE",
      `finishRun: the end must be an object ({ status, summaries, endedAt }), got ${givenText(end)}`,
    );
  if (!END_STATUSES.has(end.status))
    throw new NiceevalError(
      "USAGE",
      `finishRun: end.status must be "finished", "interrupted" or "crashed", got ${givenText(end.status)}`,
    );
  if (!Array.isArray(end.summaries))
    throw new NiceevalError(
      "USAGE",
      `finishRun: end.summaries must be an array (the run summary's evals, [] for none), got ${givenText(end.summaries)}`,
    );
  const elapsed = end.elapsedMs;
  if (elapsed !== undefined && !(typeof elapsed === "number" && elapsed >= 0 && elapsed < Infinity))
    throw new NiceevalError(
      "USAGE",
      `finishRun: end.elapsedMs must be a finite number of milliseconds from 0 (the run summary's elapsedMs), got ${String(elapsed)}`,
    );
  if (end.endedAt === undefined) return end;
  const endedAt = isoDateTime(end.endedAt, "finishRun: end.endedAt");
  return endedAt === end.endedAt ? end : { ...end, endedAt };
}

const END_STATUSES: ReadonlySet<unknown> = new Set(RUN_STATUSES.filter((s) => s !== "running"));

/** Passwords in command-line arguments (`--store postgres://u:pw@…`) never reach a store. */
export function withoutCredentials(manifest: RunManifest): RunManifest {
  const command = manifest.command.map((arg) =>
    /:\/\/[^/@]*:[^\n]*@|[?&]password=/i.test(arg) ? redactUrl(arg) : arg,
  );
  return command.some((arg, i) => arg !== manifest.command[i])
    ? { ...manifest, command }
    : manifest;
}

/**
 * The `--filter` a run selected its cases with, or undefined for a run of every case: its
 * manifest's `filter`, or, for a run stored before manifests kept it, its command line.
 */
export function runFilter(run: RunManifest): string | undefined {
  if (run.filter !== undefined) return run.filter === "" ? undefined : run.filter;
  const argv = run.command;
  // Only a `run` command line selects cases (a merge's names runs and files).
  if (!argv.includes("run")) return undefined;
  let filter: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--filter") filter = argv[i + 1];
    else if (arg.startsWith("--filter=")) filter = arg.slice("--filter=".length);
  }
  return filter === "" ? undefined : filter;
}

/**
 * Refuse a writer joining a run with other eval files or configurations (`RUN_MISMATCH`): its
 * attempts would not be comparable with the rest of the run.
 */
export function checkJoin(stored: RunManifest, joining: RunManifest, location: string): void {
  const differences: string[] = [];
  const files = new Map(stored.files.map((f) => [f.path, f.hash]));
  for (const f of joining.files)
    if (files.has(f.path) && files.get(f.path) !== f.hash) differences.push(`file ${f.path}`);
  const configs = new Map(stored.evals.map((e) => [e.evalId, e.configHash]));
  for (const e of joining.evals)
    if (configs.has(e.evalId) && configs.get(e.evalId) !== e.configHash)
      differences.push(`eval ${e.evalId}'s configuration`);
  if (differences.length)
    throw new NiceevalError(
      "RUN_MISMATCH",
      `cannot join run ${joining.runId} in ${location}: this writer's eval files or configurations differ from the run's (${differences.slice(0, 5).join(", ")}). Run every writer on the same eval files and configuration, or start a new run.`,
    );
}

/**
 * Refuse to continue a run another live process is writing (`RUN_STILL_RUNNING`). Read in the
 * transaction that takes the run over, so of two processes resuming one run at once, the second
 * finds the first at work instead of both running the rest. `force` takes the writer's word for
 * being gone (a writer on another host cannot be checked).
 */
export function checkResumable(
  status: RunStatus,
  stored: RunManifest,
  force: boolean,
  advice: StoreAdvice,
): void {
  if (status !== "running" || force || writerGone(stored)) return;
  const who = stored.writer ? ` (pid ${stored.writer.pid} on ${stored.writer.host})` : "";
  throw new NiceevalError(
    "RUN_STILL_RUNNING",
    `run ${stored.runId.slice(0, 8)} is still being written by another process${who}. Wait for it, stop it, or ${advice.force} if that process is gone.`,
  );
}

/**
 * The manifest of a run being continued (`beginRun(…, { resume: true })`): the run's own, with
 * the new writer, one more resume mark and any changes it was forced through.
 */
export function resumedManifest(stored: RunManifest, resuming: RunManifest): RunManifest {
  // The continuation loads every file again and ends with its own load errors: the stored ones
  // go. Errors outside any attempt stay (what caused them is not run again, see
  // RunOptions.earlierRunErrors), even if the continuation is killed before it ends.
  // Continued here, the run is this store's own: no longer only an import.
  // Its time is the continuation's, known when it ends.
  const { loadErrors: _load, imported: _imported, elapsedMs: _elapsed, ...kept } = stored;
  const next: RunManifest = {
    ...kept,
    resumes: [...(stored.resumes ?? []), ...(resuming.resumes ?? [])],
  };
  if (resuming.writer) next.writer = resuming.writer;
  const changes = [...(stored.resumedWithChanges ?? []), ...(resuming.resumedWithChanges ?? [])];
  if (changes.length) next.resumedWithChanges = [...new Set(changes)];
  // An eval a forced continuation added is the run's too: its attempts are stored, so the
  // manifest lists it (an export of the run names every eval its records belong to).
  // A run stopped while its files loaded recorded no eval: the continuation's files are its own.
  if (stored.evals.length === 0) next.files = resuming.files;
  const known = new Set(stored.evals.map((e) => e.evalId));
  const added = resuming.evals.filter((e) => !known.has(e.evalId));
  if (added.length) next.evals = [...stored.evals, ...added];
  return next;
}

/**
 * The manifest of a run as it ends (`finishRun`): each eval's dataset hash (none for an eval whose
 * cases were not all read: a hash of part of a dataset would tell `compare` it changed), and the
 * load errors and errors outside any attempt it ended with, and the continuations and the import mark an import gives.
 */
export function endedManifest(manifest: RunManifest, end: RunEnd): RunManifest {
  if (end.datasetHashes)
    for (const e of manifest.evals) {
      const hash = end.datasetHashes[e.evalId];
      if (hash === null) delete e.datasetHash;
      else if (hash !== undefined) e.datasetHash = hash;
    }
  if (end.loadErrors?.length) manifest.loadErrors = end.loadErrors;
  if (end.runErrors?.length) manifest.runErrors = end.runErrors;
  if (end.resumes?.length) manifest.resumes = end.resumes;
  else if (end.resumes) delete manifest.resumes;
  if (end.imported) manifest.imported = end.imported;
  // Each end says how long the run took, or that nobody knows (an export cut short, a merge).
  if (end.elapsedMs !== undefined) manifest.elapsedMs = end.elapsedMs;
  else delete manifest.elapsedMs;
  return manifest;
}
