import { writeSync } from "node:fs";
import { thrownAt } from "../errors.js";
import { keepListener } from "../process-listeners.js";

/** What {@link guardSilentExit} gives the command: how it ends once it has finished. */
export interface ExitGuard {
  /** End the process with the command's code, whatever loaded code did to `process.exit`. */
  exit(code: number): never;
}

/** Exit codes a signal's stop gives (SIGINT, SIGTERM): the run's own, not loaded code's. */
const SIGNAL_EXITS = new Set([130, 143]);

/**
 * The line that says loaded code called `process.exit(code)` (`at`: where, when known) before the
 * command finished, which then exits 1.
 */
export type SilentExitNotice = (code: number, at: string | undefined) => string;

/** A run's words: its report is incomplete and it failed. */
const runNotice: SilentExitNotice = (code, at) =>
  `niceeval: code loaded by the run called process.exit(${code})${at ? ` at ${at}` : ""} before the run finished; the report is incomplete and the run is failed (exit 1)\n`;

let notice = runNotice;

/**
 * Say loaded code's `process.exit` in the words of the command that loaded it (a worker has no
 * report and fails no run); read as the process exits, so it may name what was under way then.
 */
export function sayExitAs(words: SilentExitNotice): void {
  notice = words;
}

/**
 * Code this process loaded (an eval file's timers, a target run with `--no-supervise`) that calls
 * `process.exit` before the command finished would end the run with no report, and with a code
 * it chose: `exit(0)` a success, `exit(3)` a code the CLI does not document. Such an exit is
 * turned into exit code 1 with a line saying why.
 */
export function guardSilentExit(): ExitGuard {
  let finished = false;
  const exit = process.exit;
  let called: number | undefined;
  /** Where user code called process.exit: its first frame outside Node, niceeval and packages. */
  let calledAt: string | undefined;
  process.exit = ((code?: number | string | null) => {
    if (!finished) {
      called = Number.parseInt(String(code ?? process.exitCode ?? 0), 10) || 0;
      calledAt = thrownAt(new Error("process.exit"));
    }
    return exit.call(process, code);
  }) as typeof process.exit;
  keepListener("exit", (code: number) => {
    if (finished || SIGNAL_EXITS.has(code)) return;
    // Node ending on an uncaught error (code 1, or 7 and the like) says so itself.
    if (code !== 0 && called === undefined) return;
    try {
      writeSync(2, notice(called ?? 0, calledAt));
    } catch {}
    process.exitCode = 1;
  });
  return {
    exit(code) {
      finished = true;
      return exit.call(process, code);
    },
  };
}
