import type { AttemptRecord } from "../eval/record.js";
import type { AttemptContext } from "../eval/runnable.js";
import type { RunEntry } from "./entry.js";
import { type Executor, isPromise, replayJudgments } from "./executor.js";
import type { KeyedLimiter } from "./limiter.js";
import type { AttemptInfo } from "./sink.js";
import { crashed, type SourceItem } from "./source.js";
import type { RunTally } from "./tally.js";
import type { Watchdog } from "./watchdog.js";

/** An attempt to run, as the case source gives it. */
export type CaseItem = Extract<SourceItem, { type: "case" }>;

/** What running an attempt needs from its run. */
export interface AttemptRunnerOptions {
  readonly entries: readonly RunEntry[];
  readonly executor: Executor;
  /** Attempts handed to the executor ahead of the run's concurrency (0: none). */
  readonly prefetch: number;
  readonly concurrency: number;
  readonly signal: AbortSignal;
  readonly watchdog: Watchdog;
  readonly limiter: KeyedLimiter;
  readonly tally: RunTally;
  /** Told as each attempt starts, when a sink wants to know. */
  readonly started: ((info: AttemptInfo) => void) | undefined;
  /** Whether an attempt's info is wanted (a started or judgment hook). */
  readonly wantsInfo: boolean;
  readonly contextFor: (trial: number, info: AttemptInfo | undefined) => AttemptContext;
}

/**
 * Runs one attempt, within its eval's concurrency and the run's last-resort time limit: its
 * record, or undefined for one queued ahead that a stop left unstarted. An executor that answers
 * at once (`executeNow`) is given no promise, no timer and no wrapper, so a run of synchronous
 * targets and scorers pays none per attempt: nothing could have stopped a synchronous attempt.
 */
export function attemptRunner(
  options: AttemptRunnerOptions,
): (item: CaseItem) => AttemptRecord | undefined | Promise<AttemptRecord | undefined> {
  const { entries, executor, prefetch, watchdog, limiter, tally } = options;
  const begin = (entry: number, info: AttemptInfo | undefined) => {
    tally.attemptStarted(entry);
    options.started?.(info!);
  };
  const end = (entry: number) => {
    limiter.release(entry);
    tally.attemptEnded(entry);
  };
  const jobOf = (item: CaseItem, info: AttemptInfo | undefined) => ({
    entry: entries[item.entry]!,
    spec: item.spec,
    trial: item.trial,
    context: options.contextFor(item.trial, info),
  });
  const infoOf = (item: CaseItem): AttemptInfo | undefined =>
    options.wantsInfo
      ? {
          evalId: entries[item.entry]!.eval.id,
          caseId: item.spec.id,
          index: item.spec.index,
          trial: item.trial,
        }
      : undefined;
  const crashedAttempt = (item: CaseItem, error: unknown, startedAt: number | undefined) => {
    const { eval: runnable } = entries[item.entry]!;
    const message = error instanceof Error ? error.message : String(error);
    const record = crashed(
      runnable.id,
      item.spec,
      `eval "${runnable.id}" crashed on case "${item.spec.id}": ${message}`,
    );
    // The time it really ran (a timed-out attempt ran for its whole limit).
    record.elapsedMs = startedAt === undefined ? 0 : performance.now() - startedAt;
    return record;
  };

  /** Through `executeNow`: the record itself when the attempt answered at once. */
  const now = (item: CaseItem, executeNow: NonNullable<Executor["executeNow"]>) => {
    const info = infoOf(item);
    const startedAt = performance.now();
    begin(item.entry, info);
    let out: AttemptRecord | Promise<AttemptRecord>;
    try {
      out = executeNow.call(executor, jobOf(item, info));
    } catch (error) {
      out = crashedAttempt(item, error, startedAt);
    }
    if (!isPromise(out)) {
      end(item.entry);
      return out;
    }
    const running = out;
    return watchdog
      .guard(() => running)
      .then(
        (record) => {
          end(item.entry);
          return record;
        },
        (error: unknown) => {
          end(item.entry);
          return crashedAttempt(item, error, startedAt);
        },
      );
  };

  /** Through `execute`, perhaps queued on the executor's side first (`prefetch`). */
  const queued = async (item: CaseItem): Promise<AttemptRecord | undefined> => {
    const info = infoOf(item);
    let startedAt: number | undefined;
    const start = () => {
      if (startedAt !== undefined) return;
      startedAt = performance.now();
      begin(item.entry, info);
    };
    let record: AttemptRecord;
    try {
      const job = jobOf(item, info);
      if (prefetch > 0) {
        record = await watchdog.guardFromStart((armed) => {
          const started = () => {
            start();
            armed();
          };
          return executor.execute({
            ...job,
            queue: { concurrency: options.concurrency, started },
          });
        });
      } else {
        start();
        record = await watchdog.guard(() => executor.execute(job));
      }
    } catch (error) {
      record = crashedAttempt(item, error, startedAt);
    }
    if (startedAt === undefined && prefetch > 0 && options.signal.aborted) {
      // Queued ahead and not started when the run was stopped: not run, so not recorded (a
      // resume runs it), as if it had not been read.
      limiter.release(item.entry);
      return undefined;
    }
    // Sinks see every attempt start, even one its executor ended before starting it.
    start();
    end(item.entry);
    return record;
  };

  /** A record the executor already holds: started and ended at once, nothing to wait for. */
  const held = (item: CaseItem, record: AttemptRecord) => {
    const info = infoOf(item);
    begin(item.entry, info);
    replayJudgments(options.contextFor(item.trial, info), record);
    end(item.entry);
    return record;
  };

  const acquired = (item: CaseItem) => {
    const record = executor.takeFinished?.(entries[item.entry]!, item.spec, item.trial);
    if (record) return held(item, record);
    return prefetch === 0 && executor.executeNow ? now(item, executor.executeNow) : queued(item);
  };
  return (item) => {
    const wait = limiter.acquire(item.entry);
    return wait ? wait.then(() => acquired(item)) : acquired(item);
  };
}
