import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { NiceevalError } from "../../errors.js";
import type { AttemptRecord } from "../../eval/record.js";
import { builtFile } from "../../package-files.js";
import type { Store } from "../types.js";
import type { EncodedBatch } from "./codec.js";
import type { AppenderOptions } from "./store.js";

/** The store on the engine's thread: it encodes the batches the thread appends. */
export interface EncodingStore extends Store {
  encode(records: readonly AttemptRecord[]): EncodedBatch;
}

/** Batches posted to the thread and not yet answered, past which an append waits. */
const MAX_AHEAD = 8;

/**
 * Attempts a run appends in place before its thread starts: a small run (a score eval, a few
 * judged cases) never pays for starting a thread, its module loads and its connection (about
 * 50 ms of a 1-case run); a large one starts it here and keeps appending in place until the
 * thread says it is ready.
 */
const IN_PLACE_ATTEMPTS = 1024;

/** The thread's answer to a batch, or (`ready`) word that its connection is open. */
interface Reply {
  id: number;
  ready?: true;
  error?: { message: string; code?: string };
}

/**
 * The worker thread that appends batches, with a connection of its own. Batches are posted
 * without waiting for the one before (the thread keeps their order), so it always has the next
 * one at hand; past MAX_AHEAD unanswered batches, a post waits. Its first failure fails every
 * wait after it.
 */
class AppendThread {
  private worker: Worker | undefined;
  private readonly posted = new Set<number>();
  private nextId = 0;
  private failure: Error | undefined;
  private waiting: (() => void)[] = [];
  /** The thread has opened its connection: batches go to it from now on. */
  ready = false;
  private closing = false;

  constructor(
    private readonly script: URL,
    private readonly workerData: unknown,
  ) {}

  /** Start the thread now (it is started with the first batch otherwise). */
  start(): void {
    if (this.worker) return;
    const worker = new Worker(this.script, { workerData: this.workerData });
    worker.unref();
    worker.on("message", (reply: Reply) => {
      if (reply.ready) {
        this.ready = true;
        return;
      }
      const error = reply.error
        ? reply.error.code
          ? new NiceevalError(reply.error.code, reply.error.message)
          : new Error(reply.error.message)
        : undefined;
      this.answered(reply.id, error);
    });
    // A thread that fails before it is ready took no batch: the appends stay in place.
    worker.on("error", (error) => {
      if (this.ready) this.failAll(error);
    });
    // Once ready, batches go only to the thread: one that ends before it is closed fails them.
    worker.on("exit", (code) => {
      if (this.posted.size > 0 || (this.ready && !this.closing))
        this.failAll(new Error(`the store's append thread exited with code ${code}`));
    });
    this.worker = worker;
  }

  /** Post a batch once there is room; it is appended in the order posted. */
  async post(runId: string, batch: () => EncodedBatch): Promise<void> {
    await this.until(() => this.posted.size < MAX_AHEAD);
    const encoded = batch();
    const id = this.nextId++;
    this.start();
    this.worker!.postMessage({ id, runId, batch: encoded });
    this.worker!.ref();
    this.posted.add(id);
  }

  /** Every batch posted so far is committed; rejects with the thread's first failure. */
  drain(): Promise<void> {
    return this.until(() => this.posted.size === 0);
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.worker?.terminate();
  }

  /** Wake the posts waiting for room and the drains waiting for the thread to be done. */
  private wake(): void {
    const woken = this.waiting;
    this.waiting = [];
    for (const go of woken) go();
    if (this.posted.size === 0) this.worker?.unref();
  }

  private answered(id: number, error?: Error): void {
    if (!this.posted.delete(id)) return;
    if (error) this.failure ??= error;
    this.wake();
  }

  private failAll(error: Error): void {
    this.failure ??= error;
    this.posted.clear();
    this.wake();
  }

  /** Resolves when `ready()` holds; rejects with the thread's first failure. */
  private until(ready: () => boolean): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const check = () => {
        if (this.failure) reject(this.failure);
        else if (ready()) resolve();
        else this.waiting.push(check);
      };
      check();
    });
  }
}

/** Where a thread-backed store's batches went: a diagnostic (tests, benchmarks). */
export interface AppendCounts {
  inPlace: number;
  onThread: number;
}

/**
 * A store whose attempt appends run on a worker thread with a connection of its own, so the
 * SQLite transactions of a large run's attempts leave the thread that runs the engine (and
 * answers the supervised eval process). A run's first attempts are appended in place
 * (IN_PLACE_ATTEMPTS), and so are the batches that come while the thread starts. Batches are
 * encoded here, into flat strings and numbers that are far cheaper to copy to the thread than the
 * records. Everything else goes to `store`.
 */
export function withAppendThread(
  store: EncodingStore,
  path: string,
  options: AppenderOptions,
): Store & { appendCounts?(): AppendCounts } {
  const script = builtFile("store/sqlite/append-worker.js");
  // Run from TypeScript sources (tests), there is no compiled script for a thread.
  if (!existsSync(fileURLToPath(script))) return store;
  // The thread starts once the appends pass IN_PLACE_ATTEMPTS (its start-up then overlaps the
  // run's next batches, appended in place meanwhile); commands that only read never start it.
  const thread = new AppendThread(script, { path, options });
  /** The same as drain, for a read: a failed append is the writer's to report. */
  const settled = () => thread.drain().catch(() => {});

  // A run this store began, or found: appending to any other is refused here, at once.
  const runs = new Set<string>();
  let appended = 0;
  const counts: AppendCounts = { inPlace: 0, onThread: 0 };
  const appendOnThread = async (runId: string, records: readonly AttemptRecord[]) => {
    if (!runs.has(runId)) {
      // Unknown here: this thread's store answers it (with RUN_NOT_FOUND when there is no such run).
      if (!(await store.getRun(runId))) return store.appendAttempts(runId, records);
      runs.add(runId);
    }
    appended += records.length;
    if (!thread.ready) {
      if (appended > IN_PLACE_ATTEMPTS) thread.start();
      // Nothing is posted before the thread is ready, so these come in order.
      counts.inPlace++;
      return store.appendAttempts(runId, records);
    }
    counts.onThread++;
    await thread.post(runId, () => store.encode(records));
  };

  return {
    appendCounts: () => ({ ...counts }),
    location: store.location,
    beginRun: async (manifest, options) => {
      const begun = await store.beginRun(manifest, options);
      runs.add(manifest.runId);
      return begun;
    },
    appendAttempts: (runId, records) =>
      // What is not a list is refused in place, by the store's check of the records.
      !Array.isArray(records)
        ? store.appendAttempts(runId, records)
        : records.length === 0
          ? Promise.resolve()
          : appendOnThread(runId, records),
    // The run is finished on this thread's connection once its attempts are all committed.
    finishRun: async (...args) => {
      await thread.drain();
      return store.finishRun(...args);
    },
    // A read sees every attempt appended before it, as with a store that appends in place.
    listRuns: (...args) => settled().then(() => store.listRuns(...args)),
    getRun: (...args) => settled().then(() => store.getRun(...args)),
    async *streamAttempts(...args) {
      await settled();
      yield* store.streamAttempts(...args);
    },
    queryAttempts: (...args) => settled().then(() => store.queryAttempts(...args)),
    async *attemptKeys(...args) {
      await settled();
      yield* store.attemptKeys(...args);
    },
    async *attemptHistory(...args) {
      await settled();
      yield* store.attemptHistory(...args);
    },
    async close() {
      await settled();
      await thread.close();
      await store.close();
    },
  };
}
