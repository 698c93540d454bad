import { ChildProcess } from "node:child_process";

/** Told of each process started in this one, with whether it leads a process group of its own. */
export type SpawnListener = (child: ChildProcess, detached: boolean) => void;

let listeners: SpawnListener[] | undefined;

/**
 * Call `listener` after each process this one starts from now on: every way of starting one
 * (spawn, exec, execFile, fork) goes through `ChildProcess.prototype.spawn`, which is wrapped once
 * for all listeners. Used to end what targets leave running (supervisor/group-reaper.ts in an eval
 * process, cli/left-processes.ts when the CLI runs them itself).
 */
export function afterSpawn(listener: SpawnListener): void {
  if (listeners) {
    listeners.push(listener);
    return;
  }
  const called: SpawnListener[] = [listener];
  listeners = called;
  const prototype = ChildProcess.prototype as unknown as {
    spawn(this: ChildProcess, options: { detached?: boolean }): unknown;
  };
  const original = prototype.spawn;
  prototype.spawn = function (this: ChildProcess, options) {
    const result = original.call(this, options);
    const detached = options?.detached === true;
    for (const call of called) call(this, detached);
    return result;
  };
}
