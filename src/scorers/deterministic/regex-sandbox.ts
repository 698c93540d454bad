import { Worker } from "node:worker_threads";

// Runs in the worker: test one pattern, write 1 (match), 2 (no match) or 3 (error) and wake the caller.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const flag = new Int32Array(workerData);
let key = "";
let regex = null;
parentPort.on("message", (job) => {
  let status = 3;
  try {
    const next = job[1] + "/" + job[0];
    if (next !== key) { regex = new RegExp(job[0], job[1]); key = next; }
    regex.lastIndex = 0;
    status = regex.test(job[2]) ? 1 : 2;
  } catch {}
  Atomics.store(flag, 0, status);
  Atomics.notify(flag, 0);
});
`;

interface Sandbox {
  worker: Worker;
  flag: Int32Array;
}

let sandbox: Sandbox | undefined;

function startSandbox(): Sandbox {
  // A fresh buffer per worker, so a terminated worker can never write into its successor's answer.
  const shared = new SharedArrayBuffer(4);
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: shared });
  worker.unref();
  return { worker, flag: new Int32Array(shared) };
}

/**
 * Test a compiled-valid pattern against text in a worker thread, waiting at most `timeoutMs`.
 * Blocks the calling thread (scorers are synchronous); a worker stuck in backtracking is
 * terminated and replaced. Returns "timeout" or "error" instead of a boolean when it cannot answer.
 */
export function testWithTimeout(
  pattern: string,
  flags: string,
  text: string,
  timeoutMs: number,
): boolean | "timeout" | "error" {
  try {
    sandbox ??= startSandbox();
  } catch {
    return "error";
  }
  const { worker, flag } = sandbox;
  Atomics.store(flag, 0, 0);
  worker.postMessage([pattern, flags, text]);
  if (Atomics.wait(flag, 0, 0, timeoutMs) === "timed-out") {
    sandbox = undefined;
    void worker.terminate();
    return "timeout";
  }
  const status = Atomics.load(flag, 0);
  return status === 1 ? true : status === 2 ? false : "error";
}
