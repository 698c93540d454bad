import { realNow } from "../clock.js";
import type { AttemptRecord } from "../eval/record.js";
import { type AttemptJob, type Executor, isPromise } from "../runner/executor.js";
import { crashed } from "../runner/source.js";
import { notStarted } from "./causes.js";

/** An executor whose unfinished attempts can be given up on (a second Ctrl-C, a grace period). */
export interface InterruptibleExecutor extends Executor {
  /** Every attempt not finished resolves now, errored with `reason`; later ones too. */
  interrupt(reason: string): void;
}

/**
 * Wrap an in-process executor so an interrupt settles its attempts at once. Their work cannot be
 * stopped in this process, only abandoned: the run finishes and writes its report while it runs.
 */
export function interruptible(inner: Executor): InterruptibleExecutor {
  const pending = new Set<(reason: string) => void>();
  let stopped: string | undefined;
  const interrupted = (job: AttemptJob, reason: string, elapsedMs: number): AttemptRecord => ({
    ...crashed(job.entry.eval, job.spec, reason),
    elapsedMs,
  });
  /** An attempt under way, settled by the first of its record and an interrupt. */
  const abandonable = (job: AttemptJob, running: Promise<AttemptRecord>) =>
    new Promise<AttemptRecord>((resolve, reject) => {
      const started = realNow();
      const stop = (reason: string) => resolve(interrupted(job, reason, realNow() - started));
      pending.add(stop);
      running.then(
        (record) => {
          pending.delete(stop);
          resolve(record);
        },
        (error: unknown) => {
          pending.delete(stop);
          reject(error);
        },
      );
    });
  return {
    execute(job) {
      if (stopped !== undefined)
        return Promise.resolve(interrupted(job, notStarted(job.context.signal, stopped), 0));
      return abandonable(job, inner.execute(job));
    },
    // An attempt that finished at once had nothing to abandon.
    executeNow(job) {
      if (stopped !== undefined)
        return interrupted(job, notStarted(job.context.signal, stopped), 0);
      const record = inner.executeNow ? inner.executeNow(job) : inner.execute(job);
      return isPromise(record) ? abandonable(job, record) : record;
    },
    interrupt(reason) {
      stopped ??= reason;
      for (const stop of pending) stop(reason);
      pending.clear();
    },
    ...(inner.close ? { close: () => inner.close!() } : {}),
  };
}
