import { parentPort, workerData } from "node:worker_threads";
import type { EncodedBatch } from "./codec.js";
import { type AppenderOptions, openSqliteAppender } from "./store.js";

// The thread of {@link withAppendThread}: its own connection, one batch at a time, in order.
const { path, options } = workerData as {
  path: string;
  options: AppenderOptions;
};
const store = openSqliteAppender(path, options);
// Batches are posted once the connection is open; until then the engine's thread appends in place.
parentPort?.postMessage({ id: -1, ready: true });
// Messages are handled one at a time, in order: each batch is appended before the next is read.
parentPort?.on("message", (message: { id: number; runId: string; batch: EncodedBatch }) => {
  try {
    store.appendEncoded(message.runId, message.batch);
    parentPort?.postMessage({ id: message.id });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    parentPort?.postMessage({
      id: message.id,
      error: {
        message: error instanceof Error ? error.message : String(error),
        ...(typeof code === "string" ? { code } : {}),
      },
    });
  }
});
