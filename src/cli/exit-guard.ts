import { writeSync } from "node:fs";

/**
 * Code this process loaded (an eval file's timers, a target run with `--no-supervise`) that calls
 * `process.exit(0)` before the command finished would end the run as a success with no report.
 * That exit is turned into exit code 1 with a line saying why. Returns what the command calls
 * once it has finished, after which exits are its own.
 */
export function guardSilentExit(): () => void {
  let finished = false;
  process.on("exit", (code) => {
    if (finished || code !== 0) return;
    try {
      writeSync(
        2,
        "niceeval: code loaded by the run called process.exit(0) before the run finished; the report is incomplete and the run is failed (exit 1)\n",
      );
    } catch {}
    process.exitCode = 1;
  });
  return () => {
    finished = true;
  };
}
