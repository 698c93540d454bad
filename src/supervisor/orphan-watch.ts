import { Worker } from "node:worker_threads";

/**
 * The watching thread's code (CommonJS, run with `eval`): every quarter second it reads this
 * process's parent; once the parent has been another process (the supervisor died and this one
 * was adopted) for `graceMs`, it kills this process's group (which it leads, spawn.ts) and this
 * process with SIGKILL.
 */
const WATCH = `
const { workerData } = require("node:worker_threads");
let goneAt = 0;
setInterval(() => {
  if (process.ppid === workerData.parent) return;
  goneAt ||= Date.now();
  if (Date.now() - goneAt < workerData.graceMs) return;
  // Its group first (it leads one where there are groups): what its targets started ends too.
  if (workerData.ownGroup) try { process.kill(-process.pid, "SIGKILL"); } catch {}
  process.kill(process.pid, "SIGKILL");
}, 250);
`;

/**
 * Ends this eval process when its supervisor is gone, where the kernel will not (see
 * `parentDeathLauncher` in spawn.ts). The main thread already exits on the IPC channel's
 * `disconnect`, but only when its event loop turns: a target stuck in a synchronous loop never
 * lets it, and the process would spin on after a supervisor killed with SIGKILL. A thread of its
 * own sees the parent change whatever the main thread does; it waits `graceMs` first, so a free
 * main thread still exits its own way (output written, claims file kept).
 */
export function watchSupervisor(graceMs = 2000): void {
  const parent = process.ppid;
  try {
    const watcher = new Worker(WATCH, {
      eval: true,
      workerData: { parent, graceMs, ownGroup: process.platform !== "win32" },
      // Nothing to say: no stdin, and its output would only be interleaved with the process's.
      stdout: true,
      stderr: true,
    });
    watcher.unref();
    // A thread that cannot start (resource limits) leaves the process as it was before.
    watcher.on("error", () => {});
  } catch {
    // As above.
  }
}
