import { writeSync } from "node:fs";

/**
 * `process.nextTick` and `queueMicrotask` as the eval process found them, put back when an eval
 * file replaces them as it loads (`FakeTimers.install()` at its top level: a fake that never runs
 * its callbacks). Node's streams and the process's channel to its supervisor queue their work with
 * `process.nextTick`, so with a fake in place the eval process no longer hears its supervisor and
 * the run waits for it forever. Attempts that replace them are caught by the runner's globals
 * check; this covers the files' own code, which runs before any attempt, in every process that loads them.
 */
export class TickGuard {
  readonly #nextTick = process.nextTick;
  readonly #queueMicrotask = globalThis.queueMicrotask;

  /** Put back what `file`'s loading replaced, and say so on stderr. */
  check(file: string | undefined): void {
    const replaced: string[] = [];
    if (process.nextTick !== this.#nextTick) {
      process.nextTick = this.#nextTick;
      replaced.push("process.nextTick");
    }
    if (globalThis.queueMicrotask !== this.#queueMicrotask) {
      globalThis.queueMicrotask = this.#queueMicrotask;
      replaced.push("queueMicrotask");
    }
    if (replaced.length === 0) return;
    const what = replaced.join(" and ");
    const where = file === undefined ? "an eval file" : file;
    writeSync(
      2,
      `niceeval: ${where} replaced ${what} as it loaded (fake timers installed at its top level?); niceeval put the original back, since Node's streams and an eval process's channel to its supervisor wait on it. Install fake timers inside a target, task or test and uninstall them before it returns.\n`,
    );
  }
}
