import { type ChildProcess, execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { keepListener } from "../process-listeners.js";
import { afterSpawn } from "../spawn-hook.js";

/** A process started here, and whether it was started in a process group of its own. */
interface Started {
  readonly child: ChildProcess;
  readonly detached: boolean;
}

let tracking: Started[] | undefined;

/**
 * When eval files are imported in this process (`--no-supervise`, `--queue`, a worker), their
 * top-level code and their targets run here: a process they start and leave running (a server, a
 * shell's `sleep` that inherited stdout) would outlive the run and hold the pipe this process
 * writes to, so `niceeval run --no-supervise | tee log` would wait for it. Supervised, the eval
 * process's group is ended with it; here, from this call on, the processes started in this
 * process are followed, and those still running when it exits are killed with what they
 * started in this process group. One started `detached` (a group of its own) is left, as it is
 * when supervised. Not on Windows (no process groups).
 */
export function endLeftProcessesAtExit(): void {
  if (tracking !== undefined || process.platform === "win32") return;
  tracking = [];
  const started = tracking;
  afterSpawn((child, detached) => {
    started.push({ child, detached });
    // Ended ones are dropped now and then, so a long worker does not keep them all.
    if (started.length > 256) dropEnded(started);
  });
  keepListener("exit", () => killLeft(started));
}

function dropEnded(started: Started[]): void {
  let kept = 0;
  for (const entry of started) if (running(entry.child)) started[kept++] = entry;
  started.length = kept;
}

const running = (child: ChildProcess): boolean =>
  child.pid !== undefined && child.exitCode === null && child.signalCode === null;

/** Kill the processes started here that still run, and theirs in this process group. */
function killLeft(started: readonly Started[]): void {
  const left = started.filter((entry) => !entry.detached && running(entry.child));
  if (left.length === 0) return;
  const table = processTable();
  const ours = table?.get(process.pid)?.group;
  const doomed = new Set<number>();
  for (const { child } of left) {
    doomed.add(child.pid!);
    if (table && ours !== undefined)
      for (const pid of descendants(table, child.pid!, ours)) doomed.add(pid);
  }
  for (const pid of doomed) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone already.
    }
  }
}

interface ProcessRow {
  parent: number;
  group: number;
}

/** The processes of a pid's subtree that are in process group `group` (not the pid itself). */
function descendants(table: Map<number, ProcessRow>, root: number, group: number): number[] {
  const childrenOf = new Map<number, number[]>();
  for (const [pid, row] of table) {
    const list = childrenOf.get(row.parent);
    if (list) list.push(pid);
    else childrenOf.set(row.parent, [pid]);
  }
  const found: number[] = [];
  const queue = [root];
  for (let i = 0; i < queue.length; i++) {
    for (const pid of childrenOf.get(queue[i]!) ?? []) {
      // A process that made a group of its own is left with what it started, as when supervised.
      if (table.get(pid)!.group !== group) continue;
      found.push(pid);
      queue.push(pid);
    }
  }
  return found;
}

/** Every process's parent and group: from /proc on Linux, else from `ps`; undefined if neither. */
function processTable(): Map<number, ProcessRow> | undefined {
  try {
    return procTable();
  } catch {
    try {
      return psTable();
    } catch {
      return undefined;
    }
  }
}

function procTable(): Map<number, ProcessRow> {
  const table = new Map<number, ProcessRow>();
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "latin1");
    } catch {
      continue;
    }
    // `pid (comm) state ppid pgrp …`: comm may hold spaces and parentheses, so read after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    table.set(pid, { parent: Number(fields[1]), group: Number(fields[2]) });
  }
  return table;
}

function psTable(): Map<number, ProcessRow> {
  const text = execFileSync("ps", ["-A", "-o", "pid=,ppid=,pgid="], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
    timeout: 2000,
  });
  const table = new Map<number, ProcessRow>();
  for (const line of text.split("\n")) {
    const [pid, parent, group] = line.trim().split(/\s+/).map(Number);
    if (pid !== undefined && Number.isInteger(pid) && parent !== undefined && group !== undefined)
      table.set(pid, { parent, group });
  }
  return table;
}
