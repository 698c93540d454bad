import { clearInterval, setInterval } from "../clock.js";
import type { AttemptRecord } from "../eval/record.js";
import type { RunSink } from "../runner/sink.js";
import type { RunSummary } from "../runner/summary.js";
import { type OutageHooks, storeOutageMs, writeThroughOutage } from "./outage.js";
import type { BeginRunOptions, RunEnd, RunManifest, Store } from "./types.js";

/** Options of {@link storeSink}. */
export interface StoreSinkOptions extends OutageHooks {
  /** Longest time an attempt waits before it is committed, ms (default 100). */
  flushMs?: number;
  /** Attempts per transaction at most (default 256). */
  batch?: number;
  /**
   * Attempts waiting for the store, past which the run starts no more until the store takes some
   * (default 4 × batch): a store slower than the attempts bounds the memory the run holds.
   */
  backlog?: number;
  /** Dataset hashes per eval id, read when the run finishes. */
  datasetHashes?: () => Record<string, string | null>;
  /**
   * How long a write that could not reach the store (`STORE_UNREACHABLE`) is tried again before it
   * counts as failed, from its first failure, ms (default 60 s, `NICEEVAL_STORE_OUTAGE_MS`);
   * meanwhile the attempts wait, up to `backlog`. `onOutage` and `onBack` tell the wait.
   */
  outageMs?: number;
  /** Told once when a write fails; the run goes on and the report is still written. */
  onError?: (error: unknown) => void;
  /** How the run begins (join or resume an existing run). */
  begin?: BeginRunOptions;
  /** Attempts not to write: those a resumed run read back from this store. */
  skip?: (record: AttemptRecord) => boolean;
  /**
   * The run is written when its first attempt starts rather than when it starts, and not at all
   * when it ran no case (a `--filter` that selected nothing), so it never becomes `latest` there.
   */
  beginWithAttempts?: boolean;
}

/** The sink {@link storeSink} makes. */
export interface StoreSink extends RunSink {
  /** The run's first write is done (or failed). */
  readonly ready: Promise<void>;
  /** The run's first write succeeded: the store holds the run. */
  readonly written: () => boolean;
  /** The attempts given to be written, and those a failed write left unwritten. */
  readonly unwritten: () => { lost: number; given: number };
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
): StoreSink {
  const { flushMs, batch, backlog, persist } = sinkSettings(options);
  let pending: AttemptRecord[] = [];
  let failed = false;
  /** Attempts given to the sink to write, and those of them a failure left unwritten. */
  let given = 0;
  let lost = 0;
  const waiting = new Backlog(backlog);
  const fail = (error: unknown) => {
    if (failed) return;
    failed = true;
    waiting.taken(0, true);
    options.onError?.(error);
  };
  let begun = false;
  /** The run's first write is done: the store holds the run. */
  let written = false;
  const begin = () => {
    begun = true;
    return store.beginRun(manifest, options.begin).then(() => {
      written = true;
    }, fail);
  };
  let chain: Promise<void> = options.beginWithAttempts ? Promise.resolve() : begin();
  const flush = () => {
    if (pending.length === 0) return;
    if (failed) {
      lost += pending.length;
      pending = [];
      return;
    }
    const records = pending;
    pending = [];
    if (!begun) chain = begin();
    chain = chain
      .then(() => {
        if (failed) lost += records.length;
        else
          return persist(() => store.appendAttempts(manifest.runId, records)).catch((error) => {
            lost += records.length;
            fail(error);
          });
      })
      .catch(fail)
      .finally(() => waiting.taken(records.length, failed));
  };
  const timer = setInterval(flush, flushMs);
  timer.unref();
  const sink: StoreSink = {
    ready: chain,
    written: () => written,
    unwritten: () => ({ lost, given }),
    onAttemptFinished(record) {
      if (options.skip?.(record)) return;
      given++;
      if (failed) {
        lost++;
        return;
      }
      pending.push(record);
      waiting.add();
      if (pending.length >= batch) flush();
    },
    room() {
      return waiting.room(failed);
    },
    async onRunFinished(summary: RunSummary) {
      clearInterval(timer);
      flush();
      if (!begun) {
        if (summary.totals.cases === 0) return;
        chain = begin();
      }
      await chain;
      if (failed) return;
      const end = runEnd(summary, options.datasetHashes?.());
      await persist(() => store.finishRun(manifest.runId, end)).catch(fail);
    },
  };
  // Only then: a sink with this hook makes the engine say when each attempt starts.
  if (options.beginWithAttempts)
    sink.onAttemptStarted = () => {
      if (!begun) chain = begin();
    };
  return sink;
}

/** The batching of {@link storeSink}, its defaults applied, and how each write waits out an outage. */
function sinkSettings(options: StoreSinkOptions) {
  const asked = options.batch ?? 256;
  const batch = Number.isFinite(asked) && asked >= 1 ? Math.floor(asked) : 256;
  const outageMs = options.outageMs ?? storeOutageMs();
  const hooks = {
    onOutage: options.onOutage,
    onBack: options.onBack,
    stopSignals: options.stopSignals,
    onStopped: options.onStopped,
  };
  return {
    flushMs: options.flushMs ?? 100,
    batch,
    backlog: Math.max(options.backlog ?? 4 * batch, batch),
    persist: (write: () => Promise<void>) => writeThroughOutage(write, outageMs, hooks),
  };
}

/** What the store keeps of a run as it ends: its status, time, summaries and dataset hashes. */
function runEnd(summary: RunSummary, datasetHashes: RunEnd["datasetHashes"] | undefined): RunEnd {
  return {
    status: summary.cancelled ? "interrupted" : "finished",
    endedAt: new Date().toISOString(),
    ...(Number.isFinite(summary.elapsedMs) ? { elapsedMs: summary.elapsedMs } : {}),
    summaries: summary.evals,
    ...(summary.loadErrors?.length ? { loadErrors: summary.loadErrors } : {}),
    ...(summary.runErrors?.length ? { runErrors: summary.runErrors } : {}),
    ...(datasetHashes ? { datasetHashes } : {}),
  };
}

/**
 * Records given to the sink that the store has not taken yet: past `limit`, the run waits for
 * room (unless the store failed: nothing is waited for then).
 */
class Backlog {
  #waiting = 0;
  #room: { promise: Promise<void>; resolve: () => void } | undefined;

  constructor(private readonly limit: number) {}

  add(): void {
    this.#waiting++;
  }

  /** `count` records were taken (or given up); `open`: the run waits no more (a failed store). */
  taken(count: number, open: boolean): void {
    this.#waiting -= count;
    if (this.#room && (open || this.#waiting < this.limit)) {
      this.#room.resolve();
      this.#room = undefined;
    }
  }

  /** Undefined while there is room (or `open`); else a promise settled once there is. */
  room(open: boolean): Promise<void> | undefined {
    if (this.#waiting < this.limit || open) return undefined;
    if (!this.#room) {
      let resolve!: () => void;
      const promise = new Promise<void>((done) => {
        resolve = done;
      });
      this.#room = { promise, resolve };
    }
    return this.#room.promise;
  }
}
