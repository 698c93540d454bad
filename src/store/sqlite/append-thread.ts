import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { NiceevalError } from "../../errors.js";
import type { AttemptRecord } from "../../eval/record.js";
import { builtFile } from "../../package-files.js";
import type { Store } from "../types.js";
import type { EncodedBatch } from "./codec.js";

/** The store on the engine's thread: it encodes the batches the thread appends. */
export interface EncodingStore extends Store {
  encode(records: readonly AttemptRecord[]): EncodedBatch;
}

/** Batches posted to the thread and not yet answered, past which an append waits. */
const MAX_AHEAD = 8;

interface Reply {
  id: number;
  error?: { message: string; code?: string };
}

/**
 * A store whose attempt appends run on a worker thread with a connection of its own, so the
 * SQLite transactions of a run's attempts leave the thread that runs the engine (and answers the
 * supervised eval process). Batches are encoded here, into flat strings and numbers that are far
 * cheaper to copy to the thread than the records. Everything else goes to `store`.
 */
export function withAppendThread(
  store: EncodingStore,
  path: string,
  options: { valueCapBytes?: number; busyTimeoutMs?: number },
): Store {
  const script = builtFile("store/sqlite/append-worker.js");
  // Run from TypeScript sources (tests), there is no compiled script for a thread.
  if (!existsSync(fileURLToPath(script))) return store;
  // The thread starts when a run begins (its start-up overlaps the run's own, instead of delaying
  // the first batch) or with the first append to a run begun elsewhere; commands that only read
  // never start it.
  let thread: Worker | undefined;
  // Batches are posted without waiting for the one before (the thread keeps their order), so the
  // thread always has the next one at hand; past MAX_AHEAD unanswered batches, an append waits.
  const posted = new Set<number>();
  let nextId = 0;
  let failure: Error | undefined;
  let waiting: (() => void)[] = [];
  /** Wake the appends waiting for room and the drains waiting for the thread to be done. */
  const wake = () => {
    const woken = waiting;
    waiting = [];
    for (const go of woken) go();
    if (posted.size === 0) thread?.unref();
  };
  const answered = (id: number, error?: Error) => {
    if (!posted.delete(id)) return;
    if (error) failure ??= error;
    wake();
  };
  const failAll = (error: Error) => {
    failure ??= error;
    posted.clear();
    wake();
  };
  /** Resolves when `ready()` holds; rejects with the thread's first failure. */
  const until = (ready: () => boolean) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (failure) reject(failure);
        else if (ready()) resolve();
        else waiting.push(check);
      };
      check();
    });
  /** Every batch posted so far is committed. */
  const drain = () => until(() => posted.size === 0);
  /** The same, for a read: a failed append is the writer's to report. */
  const settled = () => drain().catch(() => {});
  const start = (): Worker => {
    const worker = new Worker(script, {
      workerData: { path, options },
    });
    worker.unref();
    worker.on("message", (reply: Reply) => {
      const error = reply.error
        ? reply.error.code
          ? new NiceevalError(reply.error.code, reply.error.message)
          : new Error(reply.error.message)
        : undefined;
      answered(reply.id, error);
    });
    worker.on("error", (error) => failAll(error));
    worker.on("exit", (code) => {
      if (posted.size > 0) failAll(new Error(`the store's append thread exited with code ${code}`));
    });
    return worker;
  };

  // A run this store began, or found: appending to any other is refused here, at once.
  const runs = new Set<string>();
  const appendOnThread = async (runId: string, records: readonly AttemptRecord[]) => {
    if (!runs.has(runId)) {
      // Unknown here: this thread's store answers it (with RUN_NOT_FOUND when there is no such run).
      if (!(await store.getRun(runId))) return store.appendAttempts(runId, records);
      runs.add(runId);
    }
    await until(() => posted.size < MAX_AHEAD);
    const batch = store.encode(records);
    const id = nextId++;
    thread ??= start();
    thread.postMessage({ id, runId, batch });
    thread.ref();
    posted.add(id);
  };

  return {
    location: store.location,
    beginRun: async (manifest, options) => {
      const begun = await store.beginRun(manifest, options);
      runs.add(manifest.runId);
      thread ??= start();
      return begun;
    },
    appendAttempts: (runId, records) =>
      records.length === 0 ? Promise.resolve() : appendOnThread(runId, records),
    // The run is finished on this thread's connection once its attempts are all committed.
    finishRun: async (...args) => {
      await drain();
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
      await thread?.terminate();
      await store.close();
    },
  };
}
