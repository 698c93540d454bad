// Who writes a stored run: recorded in its manifest, so a run left `running` by a process that
// is gone is known as stopped (by `--resume`, `runs` and the viewer).
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import type { RunManifest, RunStatus } from "./types.js";

/** This process as a run's writer (recorded in the manifest of every stored run). */
export function thisWriter(): NonNullable<RunManifest["writer"]> {
  return { pid: process.pid, host: hostname() };
}

/**
 * Whether the process that is writing a `running` run is gone. On this host its pid answers
 * signal 0 while it lives; on another host (a team store) it cannot be known, so it is taken
 * as alive; a run without a recorded writer (written before writers were recorded) as dead.
 */
export function writerGone(run: RunManifest): boolean {
  if (!run.writer) return true;
  if (run.writer.host !== hostname()) return false;
  if (run.writer.pid === process.pid) return false;
  try {
    process.kill(run.writer.pid, 0);
  } catch (error) {
    // EPERM: a process with that pid exists but is not ours, so it is alive.
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
  // A writer killed with its process group answers signal 0 until its parent reaps it.
  return isZombie(run.writer.pid);
}

/**
 * A run's status as it should be shown: one left `running` by a writer that is gone (SIGKILL, a
 * machine that died) crashed.
 */
export function effectiveStatus(run: RunManifest & { status: RunStatus }): RunStatus {
  return run.status === "running" && writerGone(run) ? "crashed" : run.status;
}

/** Whether a pid is a process that has exited and is not yet reaped (Linux; false elsewhere). */
function isZombie(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return false;
  }
  // "pid (comm) state …": the command may hold spaces and parentheses, the state follows the last ")".
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return state === "Z" || state === "X";
}
