import { parentPort, workerData } from "node:worker_threads";
import type { AttemptRecord } from "../../eval/record.js";
import { openSqliteStore } from "./store.js";

// The thread of {@link withAppendThread}: its own connection, one batch at a time, in order.
const { path, options } = workerData as {
  path: string;
  options: { valueCapBytes?: number; busyTimeoutMs?: number };
};
const store = await openSqliteStore(path, options);
let chain = Promise.resolve();
parentPort?.on("message", (message: { id: number; runId: string; records: AttemptRecord[] }) => {
  chain = chain.then(async () => {
    try {
      await store.appendAttempts(message.runId, message.records);
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
});
