import { type ChildProcess, fork } from "node:child_process";

const childUrl = new URL("./child.js", import.meta.url);

interface Early {
  readonly process: ChildProcess;
  readonly cwd: string;
  readonly stdoutFd: number | undefined;
}

let early: Early | undefined;
// An eval process ignores SIGTERM (its supervisor decides what a signal means), and one not yet
// adopted has run no user code: it is ended with SIGKILL.

function forkEvalProcess(cwd: string, stdoutFd: number | undefined): ChildProcess {
  return fork(childUrl, [], {
    cwd,
    serialization: "advanced",
    stdio: ["inherit", stdoutFd ?? "inherit", "pipe", "ipc"],
  });
}

/**
 * Start an eval process now, before the command has read its files: Node's own start-up in the
 * child overlaps the parent's. The next {@link takeEvalProcess} with the same cwd and stdout
 * adopts it; {@link discardEarlyEvalProcess} ends it when nothing did.
 */
export function startEvalProcessEarly(cwd: string, stdoutFd: number | undefined): void {
  early ??= { process: forkEvalProcess(cwd, stdoutFd), cwd, stdoutFd };
}

/** An eval process waiting for its `init`: the one started early when it fits, else a new one. */
export function takeEvalProcess(cwd: string, stdoutFd: number | undefined): ChildProcess {
  const waiting = early;
  early = undefined;
  if (
    waiting &&
    waiting.cwd === cwd &&
    waiting.stdoutFd === stdoutFd &&
    waiting.process.connected &&
    waiting.process.exitCode === null
  ) {
    return waiting.process;
  }
  waiting?.process.kill("SIGKILL");
  return forkEvalProcess(cwd, stdoutFd);
}

/** End the eval process started early that no run adopted (a usage error, `--no-supervise` on resume). */
export function discardEarlyEvalProcess(): void {
  early?.process.kill("SIGKILL");
  early = undefined;
}
