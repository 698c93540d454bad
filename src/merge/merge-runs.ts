import { randomUUID } from "node:crypto";
import { DATASET_ERROR_ID } from "../eval/ids.js";
import type { AttemptRecord } from "../eval/record.js";
import type { EvalSummary } from "../runner/events.js";
import { EvalAccumulator } from "../runner/stats.js";
import type { RunManifest, RunStatus, Store, StoredRun } from "../store/types.js";
import { effectiveStatus } from "../store/writer.js";
import { type Coverage, checkMergeable, checkSameCommit, coverageOf } from "./check.js";
import { manifestOf, type RunFileReader } from "./run-file.js";

/** One run to merge: a stored run, or an export read as it goes. */
export interface MergeInput {
  manifest: RunManifest;
  /** Its attempts in case order (eval, case index, trial), read once. */
  attempts(): AsyncIterable<AttemptRecord>;
  /** How it ended; for an export, known once its attempts were read (undefined: cut short). */
  end(): { status: RunStatus; endedAt?: string; summaries: EvalSummary[] } | undefined;
}

/** A run of the store, as a merge input. */
export function storedInput(store: Store, run: StoredRun): MergeInput {
  return {
    manifest: manifestOf(run),
    attempts: () => store.streamAttempts(run.runId),
    end: () => ({
      // As `runs` says it: a run left running by a writer that is gone crashed.
      status: effectiveStatus(run),
      ...(run.endedAt !== undefined ? { endedAt: run.endedAt } : {}),
      summaries: run.summaries ?? [],
    }),
  };
}

/** An export being read ({@link openRunFile}), as a merge input: its run is not stored. */
export function fileInput(reader: RunFileReader): MergeInput {
  return { manifest: reader.manifest, attempts: () => reader.records(), end: () => reader.end() };
}

/** Options of {@link mergeRuns}. */
export interface MergeOptions {
  /** Id of the merged run (default: a new UUID). */
  runId?: string;
  name?: string;
  /** The command line that merged, for the manifest. */
  command: readonly string[];
}

/** What {@link mergeRuns} wrote and what it found. */
export interface MergeResult extends Coverage {
  runId: string;
  /** Attempts in the merged run. */
  attempts: number;
  /**
   * Attempts (eval, case, trial) that more than one input held: kept once, from the first. An
   * eval's errored reading of its cases, which every shard records, is kept once and not counted.
   */
  duplicates: number;
  /** Inputs named more than once: merged once. */
  repeatedRuns: string[];
  /** Inputs that did not finish: interrupted, crashed, still running, or an export cut short. */
  unfinished: { manifest: RunManifest; status: RunStatus | "cut short" }[];
  /** `finished` when every input finished and no shard is missing, else `interrupted`. */
  status: RunStatus;
}

/** Attempts written per transaction. */
const BATCH = 2000;

/**
 * Throws what {@link mergeRuns} would refuse these runs for (each named once): none, other eval
 * files or configurations, other commits. Asked before a store is opened, a refusal makes none.
 */
export function refuseUnmergeable(manifests: readonly RunManifest[]): void {
  if (manifests.length === 0) throw new RangeError("mergeRuns needs at least one run to merge");
  const once = manifests.filter((m, i) => manifests.findIndex((n) => n.runId === m.runId) === i);
  checkMergeable(once);
  // After the files: a file that differs is the more exact reason of the two.
  checkSameCommit(once);
}

/**
 * Merge runs (the shards of one run, typically) into one new run of `store`. The inputs must
 * have run the same eval files and configuration ({@link checkMergeable}); their attempts are
 * read as streams and merged in case order (eval, case index, trial), an attempt that several
 * inputs hold is kept once (from the first input), and the summaries are recomputed from the
 * merged attempts, so the merge of a deterministic suite's shards equals its unsharded run case
 * for case. Memory holds one batch and one eval's attempt keys.
 *
 * @example
 * const result = await mergeRuns(store, [storedInput(store, a), storedInput(store, b)], { command: [] });
 */
export async function mergeRuns(
  store: Store,
  given: readonly MergeInput[],
  options: MergeOptions,
): Promise<MergeResult> {
  const seenRuns = new Set<string>();
  const repeatedRuns: string[] = [];
  const inputs: MergeInput[] = [];
  for (const input of given) {
    const id = input.manifest.runId;
    if (seenRuns.has(id)) repeatedRuns.push(id);
    else inputs.push(input);
    seenRuns.add(id);
  }
  const manifests = inputs.map((i) => i.manifest);
  refuseUnmergeable(manifests);
  const coverage = coverageOf(manifests);
  const runId = options.runId ?? randomUUID();
  const manifest = mergedManifest(manifests, runId, options);
  await store.beginRun(manifest);
  try {
    return await mergeInto(store, manifest, inputs, coverage, repeatedRuns);
  } catch (error) {
    // A broken input mid-way: the merged run says so instead of staying "running".
    const endedAt = new Date().toISOString();
    await store.finishRun(runId, { status: "crashed", endedAt, summaries: [] }).catch(() => {});
    throw error;
  }
}

async function mergeInto(
  store: Store,
  manifest: RunManifest,
  inputs: readonly MergeInput[],
  coverage: Coverage,
  repeatedRuns: string[],
): Promise<MergeResult> {
  const { runId } = manifest;
  const order = new Map(manifest.evals.map((e, i) => [e.evalId, i]));
  const rank = (evalId: string) => {
    let at = order.get(evalId);
    if (at === undefined) {
      at = order.size;
      order.set(evalId, at);
    }
    return at;
  };
  const accumulators = new Map(
    manifest.evals.map((e) => [e.evalId, new EvalAccumulator(e.evalId, e.style, e.trials)]),
  );
  let attempts = 0;
  let duplicates = 0;
  let batch: AttemptRecord[] = [];
  let currentEval: string | undefined;
  let keys = new Set<string>();
  for await (const record of mergeOrdered(
    inputs.map((i) => i.attempts()),
    rank,
  )) {
    if (record.evalId !== currentEval) {
      currentEval = record.evalId;
      keys = new Set();
    }
    const key = `${record.caseId}\u0000${record.trial ?? 0}`;
    if (keys.has(key)) {
      // Every shard reads an eval's cases, so each records a failure to read them: one reading.
      if (record.caseId !== DATASET_ERROR_ID) duplicates++;
      continue;
    }
    keys.add(key);
    let accumulator = accumulators.get(record.evalId);
    if (!accumulator) {
      accumulator = new EvalAccumulator(record.evalId, "suite");
      accumulators.set(record.evalId, accumulator);
    }
    accumulator.add(record);
    batch.push(record);
    attempts++;
    if (batch.length >= BATCH) {
      await store.appendAttempts(runId, batch);
      batch = [];
    }
  }
  if (batch.length) await store.appendAttempts(runId, batch);

  const ends = inputs.map((i) => i.end());
  const unfinished: MergeResult["unfinished"] = [];
  inputs.forEach((input, i) => {
    const status = ends[i]?.status ?? "cut short";
    if (status !== "finished") unfinished.push({ manifest: input.manifest, status });
  });
  const complete = coverage.missingShards.length === 0 && unfinished.length === 0;
  const status: RunStatus = complete ? "finished" : "interrupted";
  // An eval's time is its slowest shard's: shards run side by side.
  const elapsed = new Map<string, number>();
  for (const end of ends)
    for (const s of end?.summaries ?? [])
      elapsed.set(s.evalId, Math.max(elapsed.get(s.evalId) ?? 0, s.elapsedMs));
  // The last input's end, when every input says when it ended (one cut short does not).
  const ended = ends.map((e) => e?.endedAt);
  const known = ended.every((at) => at !== undefined) && ended.length > 0;
  await store.finishRun(runId, {
    status,
    ...(known ? { endedAt: (ended as string[]).sort().at(-1)! } : {}),
    summaries: [...accumulators].map(([id, a]) => a.finish(elapsed.get(id) ?? 0)),
  });
  return { runId, attempts, duplicates, repeatedRuns, unfinished, status, ...coverage };
}

/** The merged run's manifest: the inputs' (which agree on files and evals), as one whole run. */
function mergedManifest(
  runs: readonly RunManifest[],
  runId: string,
  options: MergeOptions,
): RunManifest {
  const {
    shard: _shard,
    name: _name,
    runErrors: _errors,
    imported: _imported,
    ...first
  } = runs[0]!;
  // An error outside every attempt of any input failed that input: it fails the merged run too.
  const runErrors = runs.flatMap((r) => r.runErrors ?? []);
  // Tags every input agrees on; dataset hashes from whichever input has them.
  const tags = { ...first.tags };
  for (const run of runs)
    for (const key of Object.keys(tags)) if (run.tags[key] !== tags[key]) delete tags[key];
  const evals = first.evals.map((e) => {
    const hash = runs.map((r) => r.evals.find((x) => x.evalId === e.evalId)?.datasetHash);
    const datasetHash = e.datasetHash ?? hash.find((h) => h !== undefined);
    return { ...e, ...(datasetHash !== undefined ? { datasetHash } : {}) };
  });
  // One commit (checkSameCommit), with uncommitted changes when any input had some.
  const git = first.git && { ...first.git, dirty: runs.some((r) => r.git?.dirty === true) };
  return {
    ...first,
    ...(git ? { git } : {}),
    runId,
    ...(options.name !== undefined ? { name: options.name } : {}),
    tags,
    command: [...options.command],
    mergedFrom: runs.map((r) => r.runId),
    evals,
    startedAt: runs.map((r) => r.startedAt).sort()[0]!,
    ...(runErrors.length > 0 ? { runErrors } : {}),
  };
}

/** Key order of attempts: eval (as ranked), case index, trial, case id. */
function before(a: AttemptRecord, b: AttemptRecord, rank: (evalId: string) => number): boolean {
  const ea = rank(a.evalId);
  const eb = rank(b.evalId);
  if (ea !== eb) return ea < eb;
  const ia = a.index ?? -1;
  const ib = b.index ?? -1;
  if (ia !== ib) return ia < ib;
  const ta = a.trial ?? 0;
  const tb = b.trial ?? 0;
  if (ta !== tb) return ta < tb;
  return a.caseId < b.caseId;
}

/** Merge streams that are each in case order into one stream in case order (ties: first stream). */
async function* mergeOrdered(
  streams: readonly AsyncIterable<AttemptRecord>[],
  rank: (evalId: string) => number,
): AsyncGenerator<AttemptRecord> {
  const iterators = streams.map((s) => s[Symbol.asyncIterator]());
  const heads: (AttemptRecord | undefined)[] = await Promise.all(
    iterators.map(async (it) => (await it.next()).value ?? undefined),
  );
  try {
    for (;;) {
      // A handful of inputs: a linear scan beats a heap.
      let pick = -1;
      for (let i = 0; i < heads.length; i++) {
        const head = heads[i];
        if (head && (pick < 0 || before(head, heads[pick]!, rank))) pick = i;
      }
      if (pick < 0) return;
      yield heads[pick]!;
      const next = await iterators[pick]!.next();
      heads[pick] = next.done ? undefined : next.value;
    }
  } finally {
    await Promise.all(iterators.map((it) => it.return?.()));
  }
}
