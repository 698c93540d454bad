import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { NiceevalError } from "../../errors.js";
import type { AttemptRecord } from "../../eval/record.js";
import type { Store } from "../types.js";

interface Reply {
  id: number;
  error?: { message: string; code?: string };
}

/**
 * A store whose attempt appends run on a worker thread with a connection of its own, so the
 * encoding and the SQLite transactions of a run's attempts leave the thread that runs the engine
 * (and answers the supervised eval process). Everything else goes to `store`. A batch that cannot
 * be copied to the thread (a function in an output, say) is appended here instead.
 */
export function withAppendThread(
  store: Store,
  path: string,
  options: { valueCapBytes?: number; busyTimeoutMs?: number },
): Store {
  const script = new URL("./append-worker.js", import.meta.url);
  // Run from TypeScript sources (tests), there is no compiled script for a thread.
  if (!existsSync(fileURLToPath(script))) return store;
  // The thread starts with the first append, so commands that only read never start it.
  let thread: Worker | undefined;
  const pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  let nextId = 0;
  let failure: Error | undefined;
  const failAll = (error: Error) => {
    failure ??= error;
    for (const { reject } of pending.values()) reject(error);
    pending.clear();
  };
  const start = (): Worker => {
    const worker = new Worker(script, {
      workerData: { path, options },
    });
    worker.unref();
    worker.on("message", (reply: Reply) => {
      const waiting = pending.get(reply.id);
      if (!waiting) return;
      pending.delete(reply.id);
      if (reply.error) {
        waiting.reject(
          reply.error.code
            ? new NiceevalError(reply.error.code, reply.error.message)
            : new Error(reply.error.message),
        );
      } else waiting.resolve();
    });
    worker.on("error", (error) => failAll(error));
    worker.on("exit", (code) => {
      if (pending.size > 0)
        failAll(new Error(`the store's append thread exited with code ${code}`));
    });
    return worker;
  };

  const appendOnThread = (runId: string, records: readonly AttemptRecord[]) =>
    new Promise<void>((resolve, reject) => {
      if (failure) return reject(failure);
      const id = nextId++;
      thread ??= start();
      const worker = thread;
      try {
        worker.postMessage({ id, runId, records });
      } catch {
        // Not copyable to the thread: append on this one.
        store.appendAttempts(runId, records).then(resolve, reject);
        return;
      }
      worker.ref();
      pending.set(id, {
        resolve: () => {
          if (pending.size === 0) worker.unref();
          resolve();
        },
        reject,
      });
    });

  return {
    location: store.location,
    beginRun: (...args) => store.beginRun(...args),
    appendAttempts: (runId, records) =>
      records.length === 0 ? Promise.resolve() : appendOnThread(runId, records),
    finishRun: (...args) => store.finishRun(...args),
    listRuns: (...args) => store.listRuns(...args),
    getRun: (...args) => store.getRun(...args),
    streamAttempts: (...args) => store.streamAttempts(...args),
    queryAttempts: (...args) => store.queryAttempts(...args),
    attemptKeys: (...args) => store.attemptKeys(...args),
    attemptHistory: (...args) => store.attemptHistory(...args),
    async close() {
      await thread?.terminate();
      await store.close();
    },
  };
}
