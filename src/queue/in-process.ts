import type { Executor } from "../runner/executor.js";
import { inProcessExecutor } from "../runner/executor.js";
import { lastResortMs, Watchdog } from "../runner/watchdog.js";

/**
 * The executor of `niceeval worker --no-supervise`: each attempt runs in the worker's own
 * process, under the last-resort limit of its timeout (`--timeout` + 1 s, else 10 minutes), which
 * an eval process applies itself in a supervised worker. A limit reached rejects the attempt's
 * promise (the worker errors its record); `close` stops the watchdogs.
 *
 * @example
 * const executor = inProcessWorkerExecutor();
 * const record = await executor.execute({ entry, spec, trial: 0, context });
 * await executor.close();
 */
export function inProcessWorkerExecutor(): Executor & { close(): Promise<void> } {
  const watchdogs = new Map<number, Watchdog>();
  const watchdogFor = (timeoutMs: number | undefined): Watchdog => {
    const limit = lastResortMs(timeoutMs);
    const watchdog = watchdogs.get(limit) ?? new Watchdog(limit, "cli");
    watchdogs.set(limit, watchdog);
    return watchdog;
  };
  return {
    execute: (job) =>
      watchdogFor(job.context.timeoutMs).guard(() => inProcessExecutor.execute(job)),
    close: async () => {
      for (const watchdog of watchdogs.values()) watchdog.stop();
      watchdogs.clear();
    },
  };
}
