import { createReadStream, createWriteStream, existsSync, statSync, writeSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pipeline } from "node:stream/promises";
import { isatty } from "node:tty";
import { isClosedOutput, NiceevalError } from "../../errors.js";
import { safeStringify } from "../../json-safe.js";
import { describeRun } from "../../merge/check.js";
import {
  fileInput,
  type MergeInput,
  type MergeResult,
  mergeRuns,
  refuseUnmergeable,
  storedInput,
} from "../../merge/merge-runs.js";
import {
  checkRunFile,
  exportRunFile,
  type ImportResult,
  importRunFile,
  openRunFile,
  type RunFileReader,
} from "../../merge/run-file.js";
import { plural } from "../../plural.js";
import { formatShard } from "../../shard/shard.js";
import { importedRunAdvice } from "../../store/imported.js";
import { resolveRunRef, takenNameWarning } from "../../store/resolve.js";
import type { RunManifest, Store } from "../../store/types.js";
import { effectiveStatus } from "../../store/writer.js";
import type { ImportArgs, MergeArgs } from "../args.js";
import { resumeCommand } from "../command-words.js";
import type { CliIO } from "../io.js";
import { missingShardsProblem, refuseMergedAmongShards } from "../merge-again.js";

/** `niceeval export <run> --ndjson <file>`: `-` writes to stdout, and the note goes to stderr. */
export async function exportNdjson(
  ref: string,
  target: string,
  store: Store,
  io: CliIO,
): Promise<void> {
  const run = await resolveRunRef(store, ref);
  const toStdout = target === "-";
  const file = toStdout ? "-" : resolve(io.cwd, target);
  let attempts: number;
  try {
    ({ attempts } = await exportRunFile(store, run, toStdout ? io.stdoutFd : file));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A closed stdout (`export --ndjson - | head`) is the reader leaving, not a bad path.
    if (code === undefined || isClosedOutput(error)) throw error;
    throw new NiceevalError(
      "USAGE",
      `--ndjson: cannot write ${target} (${code}); pass a path in an existing, writable folder, or - for stdout`,
    );
  }
  const note = `wrote ${toStdout ? "stdout" : file}: run ${describeRun(run)}, ${plural(attempts, "attempt")}, ${effectiveStatus(run)}\n`;
  if (toStdout) io.stderr(note);
  else writeSync(io.stdoutFd, note);
}

/**
 * `niceeval import <file>...`: each export under its own run id; 1 when one was cut short. `-`
 * reads standard input, as `export --ndjson -` writes standard output. An export older than the
 * run the store holds is not imported (a warning on stderr says why), which alone is no failure.
 */
export async function importCommand(args: ImportArgs, store: Store, io: CliIO): Promise<number> {
  let code = 0;
  for (const given of args.files) {
    const shown = given === "-" ? "standard input" : given;
    const result =
      given === "-"
        ? await importStdin(store, io)
        : await importRunFile(store, resolve(io.cwd, given));
    const what = [
      result.name,
      result.shard ? `shard ${formatShard(result.shard)}` : undefined,
    ].filter(Boolean);
    const run = `run ${result.runId.slice(0, 8)}${what.length ? ` (${what.join(", ")})` : ""}`;
    if (result.older) {
      writeSync(io.stdoutFd, `not imported ${shown}: ${run}, older than the stored run\n`);
      io.stderr(`niceeval: warning: ${olderNote(shown, result, result.older)}\n`);
    } else
      writeSync(
        io.stdoutFd,
        `imported ${shown}: ${run}, ${plural(result.attempts, "attempt")}, ${result.status}${result.existed ? " (already in the store: an attempt it held is not added twice, and one that differs replaces it)" : ""}\n`,
      );
    if (result.truncated && !result.older)
      io.stderr(
        `niceeval: ${shown} ends before its run.end line (cut short?): its ${plural(result.attempts, "attempt")} ${result.attempts === 1 ? "was" : "were"} imported and the run is marked interrupted; export it again\n`,
      );
    if (result.truncated) code = 1;
  }
  return code;
}

/** What an import of an export older than the stored run kept, and why. */
function olderNote(
  shown: string,
  result: ImportResult,
  older: NonNullable<ImportResult["older"]>,
): string {
  const cut = result.truncated ? " (it ends before its run.end line: cut short?)" : "";
  return `${shown}${cut} is an older export of run ${result.runId.slice(0, 8)} than the store holds: ${older.reason}. Nothing of it was written; the stored run stays ${result.status}, with its ${plural(older.storedAttempts, "attempt")} and summaries. To go back to that export, import it into another store.`;
}

/**
 * Import the export piped into standard input. It is copied to a temporary file first: an import
 * reads its file twice (through once to check it, then to store it), so that a broken line stores
 * nothing, and a pipe can be read only once.
 */
async function importStdin(store: Store, io: CliIO) {
  const fd = io.stdinFd ?? 0;
  if (isatty(fd))
    throw new NiceevalError(
      "USAGE",
      "import -: standard input is a terminal; pipe an export into it (`niceeval export <run> --ndjson - | niceeval import -`)",
    );
  const dir = await mkdtemp(join(tmpdir(), "niceeval-import-"));
  try {
    const file = join(dir, "stdin.ndjson");
    await pipeline(createReadStream("", { fd, autoClose: false }), createWriteStream(file));
    return await importRunFile(store, file, "standard input");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * `niceeval merge <run or file>...`: one new run from shard runs, stored ones or exports read
 * directly. 2 when they ran other files or configurations; 1 when a shard is missing or an input
 * did not finish (the merge is stored all the same, as interrupted).
 */
export async function mergeCommand(
  args: MergeArgs,
  files: MergeFiles,
  store: Store,
  io: CliIO,
): Promise<number> {
  const inputs: MergeInput[] = [];
  const given: GivenAs = new Map();
  for (const ref of args.runs) {
    const reader = files.get(ref);
    const input = reader ? fileInput(reader) : storedInput(store, await resolveRunRef(store, ref));
    inputs.push(input);
    if (!given.has(input.manifest.runId))
      given.set(input.manifest.runId, { ref, file: reader !== undefined });
  }
  refuseMergedAmongShards(
    inputs.map((i) => i.manifest),
    args,
  );
  const result = await mergeRuns(store, inputs, {
    ...(args.name !== undefined ? { name: args.name } : {}),
    command: io.argv ?? process.argv.slice(1),
  });
  // As `run --name` does: a name other runs have no longer names one run.
  const taken =
    args.name !== undefined ? await takenNameWarning(store, args.name, result.runId) : undefined;
  if (taken) io.stderr(`niceeval: warning: ${taken}\n`);
  return await report(result, inputs, given, args, io, store);
}

/** How each input run was named on the command line (the first time): a stored run or an export. */
type GivenAs = Map<string, { ref: string; file: boolean }>;

/** The exports a merge names, each checked through and open, by the reference given. */
export type MergeFiles = Map<string, RunFileReader>;

/**
 * Check and open the exports among a merge's references, before the store is opened: a broken
 * or missing file fails the merge without creating a store. Closes what it opened on failure.
 */
export async function openMergeFiles(refs: readonly string[], cwd: string): Promise<MergeFiles> {
  const files: MergeFiles = new Map();
  try {
    for (const ref of refs) {
      const path = resolve(cwd, ref);
      if (isFile(path)) {
        if (files.has(ref)) continue;
        await checkRunFile(path);
        files.set(ref, await openRunFile(path));
      } else if (/[/\\]|\.ndjson$/i.test(ref)) {
        // Named like a file, not a run: say what is wrong with the file.
        throw new NiceevalError(
          "USAGE",
          `merge: ${path} is not a file (${existsSync(path) ? "a folder" : "not found"}); name an export written by \`niceeval export <run> --ndjson <file>\`, or a stored run`,
        );
      }
    }
    return files;
  } catch (error) {
    await closeMergeFiles(files);
    throw error;
  }
}

/**
 * When a merge names exports only, what it would refuse them for (a whole run among shards, other
 * eval files or configurations, other commits), before the store is opened: none is made for it.
 */
export function refuseMergeFiles(args: MergeArgs, files: MergeFiles): void {
  const manifests: RunManifest[] = [];
  for (const ref of args.runs) {
    const reader = files.get(ref);
    if (!reader) return; // a stored run: checked once the store is open
    manifests.push(reader.manifest);
  }
  refuseMergedAmongShards(manifests, args);
  refuseUnmergeable(manifests);
}

/**
 * `error` with the exports it names runs of, when it is a refusal to merge them: it names runs by
 * id, and the files given on the command line hold no id in their names. Anything else as it is.
 */
export function namingMergeFiles(error: unknown, files: MergeFiles): unknown {
  if (!(error instanceof NiceevalError) || error.code !== "RUN_MERGE_MISMATCH") return error;
  const named: string[] = [];
  for (const [ref, reader] of files) {
    const id = reader.manifest.runId.slice(0, 8);
    if (error.message.includes(id)) named.push(`${id} from ${ref}`);
  }
  if (named.length === 0) return error;
  const message = `${error.message.replace(/\.?$/, ".")} Read from files: ${named.join(", ")}.`;
  return new NiceevalError(error.code, message, { cause: error });
}

export async function closeMergeFiles(files: MergeFiles): Promise<void> {
  for (const reader of files.values()) await reader.close();
}

async function report(
  result: MergeResult,
  inputs: readonly MergeInput[],
  given: GivenAs,
  args: MergeArgs,
  io: CliIO,
  store: Store,
) {
  const notes: string[] = [];
  for (const id of new Set(result.repeatedRuns))
    notes.push(`run ${id.slice(0, 8)} was named more than once; it is merged once`);
  if (result.duplicates > 0)
    notes.push(
      `${result.duplicates} duplicated attempt${result.duplicates === 1 ? "" : "s"} (the same eval, case and trial in more than one run${result.repeatedShards.length ? `; shard ${result.repeatedShards.join(", ")} given more than once` : ""}): kept once, from the first run named`,
    );
  const problems: string[] = [];
  if (result.missingShards.length > 0)
    problems.push(
      await missingShardsProblem(
        result,
        inputs.map((i) => i.manifest),
        args,
        store,
      ),
    );
  for (const { manifest, status } of result.unfinished)
    problems.push(unfinishedProblem(manifest, status, given.get(manifest.runId), args.store));
  const merged = inputs.length - result.repeatedRuns.length;
  if (args.json) {
    writeSync(
      io.stdoutFd,
      `${safeStringify({
        runId: result.runId,
        ...(args.name !== undefined ? { name: args.name } : {}),
        status: result.status,
        inputs: [...new Set(inputs.map((i) => i.manifest.runId))],
        attempts: result.attempts,
        duplicates: result.duplicates,
        missingShards: result.missingShards,
        repeatedShards: result.repeatedShards,
        unfinished: result.unfinished.map((u) => ({ runId: u.manifest.runId, status: u.status })),
      })}\n`,
    );
  } else {
    const name = args.name !== undefined ? ` (${args.name})` : "";
    writeSync(
      io.stdoutFd,
      `merged ${merged} run${merged === 1 ? "" : "s"} into ${result.runId.slice(0, 8)}${name}: ${plural(result.attempts, "attempt")}, ${result.status}\n`,
    );
  }
  for (const note of notes) io.stderr(`niceeval: ${note}\n`);
  for (const problem of problems) io.stderr(`niceeval: ${problem}\n`);
  return problems.length > 0 ? 1 : 0;
}

/**
 * What merge says of an input that did not finish: the file it was read from, as given, when it is
 * an export, and how to finish it (where it ran, for an export or an imported run; else in the
 * store merge was given, its `--store` repeated: `storeFlag`), then merge again.
 */
function unfinishedProblem(
  manifest: RunManifest,
  status: MergeResult["unfinished"][number]["status"],
  given: { ref: string; file: boolean } | undefined,
  storeFlag: string | undefined,
): string {
  const id = manifest.runId.slice(0, 8);
  const exportIt = `\`niceeval export ${id} --ndjson <file>\``;
  if (status === "cut short")
    return `${given?.ref ?? "an export"} ends before its run.end line (cut short?): run ${describeRun(manifest)} may lack some of its cases; export it again where it ran (${exportIt}), then merge again`;
  const what = `run ${describeRun(manifest)}${given?.file ? ` (from ${given.ref})` : ""} ${unfinishedState(status)}: some of its cases may be missing`;
  if (status === "running") return `${what}; merge again once it has finished`;
  const imported = importedRunAdvice(manifest);
  if (given?.file || imported)
    return `${what}; ${imported ?? `finish it where it ran (\`niceeval run --resume ${id}\`) and export it again (${exportIt})`}, then merge again`;
  return `${what}; \`${resumeCommand(manifest.runId, storeFlag)}\` runs the rest, then merge again`;
}

/** How an input that did not finish stands, as merge says it. */
function unfinishedState(status: MergeResult["unfinished"][number]["status"]): string {
  if (status === "crashed") return "crashed (its writer stopped without ending it)";
  if (status === "running") return "is still running";
  return `is ${status}`;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
