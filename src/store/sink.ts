import type { AttemptRecord } from "../eval/record.js";
import type { RunSink } from "../runner/sink.js";
import type { RunSummary } from "../runner/summary.js";
import type { BeginRunOptions, RunManifest, Store } from "./types.js";

/** Options of {@link storeSink}. */
export interface StoreSinkOptions {
  /** Longest time an attempt waits before it is committed, ms (default 100). */
  flushMs?: number;
  /** Attempts per transaction at most (default 256). */
  batch?: number;
  /** Dataset hashes per eval id, read when the run finishes. */
  datasetHashes?: () => Record<string, string>;
  /** Told once when a write fails; the run goes on and the report is still written. */
  onError?: (error: unknown) => void;
  /** How the run begins (join or resume an existing run). */
  begin?: BeginRunOptions;
  /** Attempts not to write: those a resumed run read back from this store. */
  skip?: (record: AttemptRecord) => boolean;
}

/**
 * Writes a run to a store as it happens: the manifest when it starts, attempts in small
 * transactions (so a killed process loses at most the last fraction of a second), and the
 * status and summaries when it ends.
 */
export function storeSink(
  store: Store,
  manifest: RunManifest,
  options: StoreSinkOptions = {},
): RunSink & { readonly ready: Promise<void> } {
  const flushMs = options.flushMs ?? 100;
  const batch = options.batch ?? 256;
  let pending: AttemptRecord[] = [];
  let failed = false;
  const fail = (error: unknown) => {
    if (failed) return;
    failed = true;
    options.onError?.(error);
  };
  let chain: Promise<void> = store.beginRun(manifest, options.begin).catch(fail);
  const flush = () => {
    if (pending.length === 0 || failed) return;
    const records = pending;
    pending = [];
    chain = chain
      .then(() => (failed ? undefined : store.appendAttempts(manifest.runId, records)))
      .catch(fail);
  };
  const timer = setInterval(flush, flushMs);
  timer.unref();
  return {
    ready: chain,
    onAttemptFinished(record) {
      if (options.skip?.(record)) return;
      pending.push(record);
      if (pending.length >= batch) flush();
    },
    async onRunFinished(summary: RunSummary) {
      clearInterval(timer);
      flush();
      await chain;
      if (failed) return;
      await store
        .finishRun(manifest.runId, {
          status: summary.cancelled ? "interrupted" : "finished",
          endedAt: new Date().toISOString(),
          summaries: summary.evals,
          ...(options.datasetHashes ? { datasetHashes: options.datasetHashes() } : {}),
        })
        .catch(fail);
    },
  };
}
