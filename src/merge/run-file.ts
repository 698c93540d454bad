import { closeSync, createReadStream, openSync } from "node:fs";
import { NiceevalError } from "../errors.js";
import type { AttemptRecord } from "../eval/record.js";
import { isJsonText, safeStringify } from "../json-safe.js";
import { LineWriter } from "../report/output.js";
import type { EvalSummary } from "../runner/events.js";
import { checkJoin } from "../store/manifest.js";
import { manifestFieldProblem } from "../store/manifest-fields.js";
import { RUN_STATUSES } from "../store/run-list-query.js";
import type { RunManifest, RunStatus, Store, StoredRun } from "../store/types.js";
import { effectiveStatus } from "../store/writer.js";
import { filePoint, olderBecause, storedPoint } from "./import-order.js";
import { notJsonProblem } from "./not-json.js";
import { recordProblem, recordRules } from "./record-problem.js";

/** Format id carried by the first line of a run export. */
export const RUN_FILE_FORMAT = "niceeval/run/v1" as const;

/**
 * The lines of a run export, in order: one `run` line (the manifest), one `record` line per
 * attempt in case order (the same `record` lines as the live NDJSON report), one `run.end` line.
 */
export type RunFileLine =
  | { type: "run"; format: typeof RUN_FILE_FORMAT; manifest: RunManifest }
  | { type: "record"; record: AttemptRecord }
  | {
      type: "run.end";
      status: RunStatus;
      endedAt?: string;
      /** How long the run took as its report said it (`RunManifest.elapsedMs`), when known. */
      elapsedMs?: number;
      summaries: EvalSummary[];
      /** How many `record` lines came before: an import checks it got them all. */
      attempts: number;
    };

/** The manifest part of a stored run: what `beginRun` was given. */
export function manifestOf(run: StoredRun): RunManifest {
  const {
    status: _status,
    endedAt: _endedAt,
    summaries: _summaries,
    totals: _totals,
    // Known as the run ended: it goes with the end line, which an export cut short lacks.
    elapsedMs: _elapsedMs,
    ...manifest
  } = run;
  return manifest;
}

/**
 * Write a stored run as NDJSON to `target` (a path, or a file descriptor), streaming its
 * attempts from the store: memory stays bounded by one batch of lines, whatever the run's size.
 * @returns how many attempts were written
 * @example
 * await exportRunFile(store, await resolveRunRef(store, "latest"), "run.ndjson");
 */
export async function exportRunFile(
  store: Store,
  run: StoredRun,
  target: string | number,
): Promise<{ attempts: number }> {
  const fd = typeof target === "number" ? target : openSync(target, "w");
  try {
    const out = new LineWriter(fd);
    const line = (value: RunFileLine) => out.line(safeStringify(value));
    line({ type: "run", format: RUN_FILE_FORMAT, manifest: manifestOf(run) });
    let attempts = 0;
    for await (const record of store.streamAttempts(run.runId)) {
      line({ type: "record", record });
      attempts++;
    }
    line({
      type: "run.end",
      status: effectiveStatus(run),
      ...(run.endedAt !== undefined ? { endedAt: run.endedAt } : {}),
      ...(run.elapsedMs !== undefined ? { elapsedMs: run.elapsedMs } : {}),
      summaries: run.summaries ?? [],
      attempts,
    });
    out.flush();
    return { attempts };
  } finally {
    if (typeof target !== "number") closeSync(fd);
  }
}

/** How an export ends: its `run.end` line, without the type. */
export type RunFileEnd = Omit<Extract<RunFileLine, { type: "run.end" }>, "type">;

/** An export being read: its manifest at once, its attempts as a stream, its end after them. */
export interface RunFileReader {
  file: string;
  manifest: RunManifest;
  /** The attempts, streamed; each call goes on where the last stopped (read them once). */
  records(): AsyncIterable<AttemptRecord>;
  /** The `run.end` line once the records were read; undefined when the file was cut short. */
  end(): RunFileEnd | undefined;
  /** Stop reading (closes the file). */
  close(): Promise<void>;
}

/**
 * Open a run export: reads up to its manifest line and no further, so many exports can be open
 * at once and read side by side. A file that is not an export, or a broken line, is
 * `RUN_IMPORT_INVALID` naming the file (as `shown`, default its path) and the line.
 */
export async function openRunFile(file: string, shown = file): Promise<RunFileReader> {
  const lines = parsedLines(file, shown);
  const first = await lines.next();
  if (first.done)
    throw new NiceevalError(
      "RUN_IMPORT_INVALID",
      `cannot read ${shown}: it is empty; write an export with \`niceeval export <run> --ndjson <file>\``,
    );
  const { value: head, line: firstLine } = first.value;
  if (head.type !== "run" || head.format !== RUN_FILE_FORMAT || !isManifest(head.manifest))
    throw invalidLine(
      shown,
      firstLine,
      `is not the start of a niceeval run export (format ${RUN_FILE_FORMAT}); write one with \`niceeval export <run> --ndjson <file>\``,
    );
  // What a store's beginRun would refuse, refused here, before anything of the file is stored.
  const fieldProblem = manifestFieldProblem(head.manifest);
  if (fieldProblem !== undefined)
    throw invalidLine(
      shown,
      firstLine,
      `has manifest.${fieldProblem}. Nothing of this file is stored: export the run again with \`niceeval export <run> --ndjson <file>\` rather than editing its lines`,
    );
  let end: RunFileEnd | undefined;
  const rules = recordRules(head.manifest as RunManifest);
  async function* records(): AsyncGenerator<AttemptRecord> {
    let count = 0;
    for (;;) {
      const next = await lines.next();
      if (next.done) return;
      const { value, line } = next.value;
      if (end !== undefined) throw invalidLine(shown, line, "comes after the run.end line");
      if (value === CUT_LINE) return;
      if (value.type === "record") {
        const problem = recordProblem(value.record, rules);
        if (problem)
          throw invalidLine(
            shown,
            line,
            `${problem}. Nothing of this file is stored: export the run again with \`niceeval export <run> --ndjson <file>\` rather than editing its lines`,
          );
        count++;
        yield value.record as AttemptRecord;
      } else if (value.type === "run.end") {
        const { type: _type, ...rest } = value as Extract<RunFileLine, { type: "run.end" }>;
        if (rest.attempts !== count)
          throw invalidLine(
            shown,
            line,
            `says the run has ${rest.attempts} attempts, but ${count} came before it`,
          );
        if (!END_STATUSES.has(rest.status))
          throw invalidLine(
            shown,
            line,
            `has status ${JSON.stringify(rest.status)}; a run ends running, finished, interrupted or crashed. Nothing of this file is stored: export the run again with \`niceeval export <run> --ndjson <file>\``,
          );
        const took = rest.elapsedMs;
        if (took !== undefined && !(typeof took === "number" && took >= 0 && took < Infinity))
          throw invalidLine(
            shown,
            line,
            `has elapsedMs ${JSON.stringify(took)}; a run's time is a finite number of milliseconds from 0. Nothing of this file is stored: export the run again with \`niceeval export <run> --ndjson <file>\``,
          );
        end = { ...rest, summaries: Array.isArray(rest.summaries) ? rest.summaries : [] };
      } else {
        throw invalidLine(shown, line, `has an unknown type ${JSON.stringify(value.type)}`);
      }
    }
  }
  const stream = records();
  return {
    file,
    manifest: head.manifest as RunManifest,
    records: () => ({ [Symbol.asyncIterator]: () => stream }),
    end: () => end,
    close: async () => {
      await lines.return(undefined);
    },
  };
}

type Parsed = Partial<RunFileLine> & Record<string, unknown>;

/** The JSON value of every non-blank line, with its line number; read in 1 MiB chunks. */
async function* parsedLines(
  file: string,
  shown: string,
): AsyncGenerator<{ value: Parsed; line: number }> {
  let line = 0;
  let rest = "";
  const parse = (text: string) => {
    try {
      return JSON.parse(text) as Parsed;
    } catch (error) {
      throw invalidLine(
        shown,
        line,
        notJsonProblem(text, { line, shown, format: RUN_FILE_FORMAT }, error),
      );
    }
  };
  const stream = createReadStream(file, { encoding: "utf8", highWaterMark: 1 << 20 });
  try {
    for await (const chunk of stream) {
      const lines = (rest + (chunk as string)).split("\n");
      rest = lines.pop() ?? "";
      for (const text of lines) {
        line++;
        if (text.trim() !== "") yield { value: parse(text), line };
      }
    }
  } catch (error) {
    if (error instanceof NiceevalError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new NiceevalError(
      "RUN_IMPORT_INVALID",
      `cannot read ${shown} (${code ?? (error as Error).message}); pass the path of a file written by \`niceeval export <run> --ndjson <file>\``,
    );
  } finally {
    stream.destroy();
  }
  line++;
  if (rest.trim() === "") return;
  // An export ends every line with a newline: a last line without one that does not parse was cut
  // (a copy or a download that stopped), so the file ends before it, as one cut between lines.
  if (line > 1 && !isJsonText(rest)) {
    yield { value: CUT_LINE, line };
    return;
  }
  yield { value: parse(rest), line };
}

/** What {@link parsedLines} gives for a last line cut before its end. */
const CUT_LINE = { type: "~cut" } as unknown as Parsed;

const invalidLine = (file: string, line: number, why: string) =>
  new NiceevalError(
    "RUN_IMPORT_INVALID",
    `cannot read the run export ${file}: line ${line} ${why}`,
  );

/** What {@link importRunFile} did. */
export interface ImportResult {
  runId: string;
  name?: string;
  shard?: RunManifest["shard"];
  /** Attempts written (none when the export was older than the stored run). */
  attempts: number;
  /** The run's status in the store after the import. */
  status: RunStatus;
  /**
   * The file stopped before its `run.end` line: the run is stored as `interrupted`, unless the
   * store already held a later point of it (then it stays as it was: `older`).
   */
  truncated: boolean;
  /** The run was already in the store: its attempts were written again, not added. */
  existed: boolean;
  /**
   * The export was older than the run the store holds (`olderBecause`): nothing of it was
   * written, and the stored run, with its attempts, stays as it was.
   */
  older?: { reason: string; storedAttempts: number };
}

/** What a `run.end` line may say of the run (a run exported while it ran says `running`). */
const END_STATUSES: ReadonlySet<unknown> = new Set(RUN_STATUSES);

/** Attempts written per transaction. */
const IMPORT_BATCH = 2000;

/**
 * Read an export through to its end without storing anything: it throws what reading it for
 * real would (a line that is not JSON, a record after `run.end`, with the file and line), so an
 * import or a merge that starts after it never stops halfway with a partial run left behind.
 * @returns how the export ends (undefined when it was cut short) and how many attempts it holds
 */
export async function checkRunFile(
  file: string,
  shown = file,
): Promise<{ end: RunFileEnd | undefined; attempts: number }> {
  const reader = await openRunFile(file, shown);
  try {
    let attempts = 0;
    for await (const _ of reader.records()) attempts++;
    return { end: reader.end(), attempts };
  } finally {
    await reader.close();
  }
}

/**
 * Read a run export back into a store under its own run id, streaming: importing the same file
 * twice leaves one run with the same attempts (a stored (eval, case, trial) is replaced, never
 * doubled), and an export of another run with that id is refused (`RUN_MISMATCH`). An export
 * older than the run the store holds ({@link olderBecause}: a stale copy from before a resume or
 * a retry) writes nothing, so it never takes back newer results or an end. `shown` is how
 * messages name the file (default: its path; "standard input" for one copied from there).
 */
export async function importRunFile(
  store: Store,
  file: string,
  shown = file,
): Promise<ImportResult> {
  const checked = await checkRunFile(file, shown);
  const reader = await openRunFile(file, shown);
  const { manifest } = reader;
  const named = {
    runId: manifest.runId,
    ...(manifest.name !== undefined ? { name: manifest.name } : {}),
    ...(manifest.shard !== undefined ? { shard: manifest.shard } : {}),
  };
  try {
    const before = await store.getRun(manifest.runId);
    if (before) {
      checkJoin(manifestOf(before), manifest, store.location);
      const point = filePoint(manifest, checked.end, checked.attempts);
      const reason = olderBecause(point, storedPoint(before));
      if (reason !== undefined)
        return {
          ...named,
          attempts: 0,
          status: effectiveStatus(before),
          truncated: checked.end === undefined,
          existed: true,
          older: { reason, storedAttempts: before.totals.attempts },
        };
    }
    const { attempts, status } = await storeRunFile(store, reader, checked.end === undefined);
    return {
      ...named,
      attempts,
      status,
      truncated: checked.end === undefined,
      existed: before !== undefined,
    };
  } finally {
    await reader.close();
  }
}

/** Write an export's run (not older than what the store holds) and its attempts; how it ended. */
async function storeRunFile(
  store: Store,
  reader: RunFileReader,
  cutShort: boolean,
): Promise<{ attempts: number; status: RunStatus }> {
  const { manifest } = reader;
  // Marked imported (a run that did not finish is exported again, not resumed here). Joining is
  // what makes a second import of the same file a no-op; other files are refused.
  const imported = {
    at: new Date().toISOString(),
    ...(cutShort ? { cutShort: true as const } : {}),
  };
  await store.beginRun({ ...manifest, imported }, { join: true });
  let attempts = 0;
  let batch: AttemptRecord[] = [];
  for await (const record of reader.records()) {
    batch.push(record);
    attempts++;
    if (batch.length >= IMPORT_BATCH) {
      await store.appendAttempts(manifest.runId, batch);
      batch = [];
    }
  }
  if (batch.length) await store.appendAttempts(manifest.runId, batch);
  const end = reader.end();
  const status: RunStatus = end ? end.status : "interrupted";
  if (status !== "running")
    // Cut short, the export does not say when its run ended: the stored run says so neither.
    // The stored manifest takes the export's continuations, which a later import compares with,
    // and its import mark, which `show` and `compare` advise from.
    await store.finishRun(manifest.runId, {
      status,
      ...(end?.endedAt !== undefined ? { endedAt: end.endedAt } : {}),
      ...(end?.elapsedMs !== undefined ? { elapsedMs: end.elapsedMs } : {}),
      summaries: end?.summaries ?? [],
      resumes: manifest.resumes ?? [],
      // Whether this export was cut short, not the first one imported of the run.
      imported,
    });
  return { attempts, status };
}

function isManifest(value: unknown): value is RunManifest {
  const m = value as Partial<RunManifest> | null;
  return (
    typeof m === "object" &&
    m !== null &&
    typeof m.runId === "string" &&
    m.runId !== "" &&
    Array.isArray(m.evals) &&
    Array.isArray(m.files) &&
    typeof m.startedAt === "string"
  );
}
