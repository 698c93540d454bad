import { realNow } from "../clock.js";
import type { AttemptRecord } from "../eval/record.js";
import type { AttemptContext } from "../eval/runnable.js";
import { isAborted } from "../signal-state.js";
import type { RunEntry } from "./entry.js";
import { type Executor, isPromise, replayJudgments, type TakenAttempt } from "./executor.js";
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
 * Runs attempts, each within its eval's concurrency and the run's last-resort time limit: its
 * record, or undefined for one a stop left unstarted (waiting for its eval's concurrency, or
 * queued ahead), which is not recorded. An executor that answers
 * at once (`executeNow`) is given no promise, no timer and no wrapper, so a run of synchronous
 * targets and scorers pays none per attempt: nothing could have stopped a synchronous attempt.
 */
export class AttemptRunner {
  /** Records the executor held finished (taken, not run here). */
  private readonly taken = new WeakSet<AttemptRecord>();

  constructor(private readonly options: AttemptRunnerOptions) {}

  /**
   * The executor held this record finished when the engine reached its case: the process that
   * ran it judged it, and marked it interrupted if the stop cut it off (keptRecord).
   */
  wasTaken(record: AttemptRecord): boolean {
    return this.taken.has(record);
  }

  run(item: CaseItem): AttemptRecord | undefined | Promise<AttemptRecord | undefined> {
    const wait = this.options.limiter.acquire(item.entry);
    return wait ? wait.then(() => this.acquired(item)) : this.acquired(item);
  }

  private acquired(item: CaseItem) {
    const { executor, entries, prefetch } = this.options;
    const taken = executor.takeFinished?.(entries[item.entry]!, item.spec, item.trial);
    if (taken) return this.held(item, taken);
    // Stopped while it waited for its eval's concurrency: it does not start, and is not run, so
    // not recorded, as one the source had not read yet (an executor that queues ahead ends what it
    // has not started itself, and `queued` leaves that out alike).
    if (prefetch === 0 && isAborted(this.options.signal)) {
      this.options.limiter.release(item.entry);
      return undefined;
    }
    return prefetch === 0 && executor.executeNow
      ? this.now(item, executor.executeNow)
      : this.queued(item);
  }

  /**
   * A record the executor already holds: nothing to wait for. The eval's time counts the attempt
   * when it ran, not when it is taken.
   */
  private held(item: CaseItem, { record, startedAt, endedAt }: TakenAttempt): AttemptRecord {
    this.taken.add(record);
    const info = this.infoOf(item);
    this.begin(item.entry, info, startedAt);
    replayJudgments(this.options.contextFor(item.trial, info), record);
    this.end(item.entry, record, endedAt);
    return record;
  }

  /** Through `executeNow`: the record itself when the attempt answered at once. */
  private now(item: CaseItem, executeNow: NonNullable<Executor["executeNow"]>) {
    const info = this.infoOf(item);
    const startedAt = realNow();
    this.begin(item.entry, info);
    let out: AttemptRecord | Promise<AttemptRecord>;
    try {
      out = executeNow.call(this.options.executor, this.jobOf(item, info));
    } catch (error) {
      out = this.crashedAttempt(item, error, startedAt);
    }
    if (!isPromise(out)) {
      this.end(item.entry, out);
      return out;
    }
    const running = out;
    return this.options.watchdog
      .guard(() => running)
      .then(
        (record) => {
          this.end(item.entry, record);
          return record;
        },
        (error: unknown) => {
          const record = this.crashedAttempt(item, error, startedAt);
          this.end(item.entry, record);
          return record;
        },
      );
  }

  /** Through `execute`, perhaps queued on the executor's side first (`prefetch`). */
  private async queued(item: CaseItem): Promise<AttemptRecord | undefined> {
    const { options } = this;
    const { executor, prefetch, watchdog } = options;
    const info = this.infoOf(item);
    let startedAt: number | undefined;
    const start = () => {
      if (startedAt !== undefined) return;
      startedAt = realNow();
      this.begin(item.entry, info);
    };
    let record: AttemptRecord;
    try {
      const job = this.jobOf(item, info);
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
      record = this.crashedAttempt(item, error, startedAt);
    }
    if (startedAt === undefined && prefetch > 0 && isAborted(options.signal)) {
      // Queued ahead and not started when the run was stopped: not run, so not recorded (a
      // resume runs it), as if it had not been read.
      options.limiter.release(item.entry);
      return undefined;
    }
    // Sinks see every attempt start, even one its executor ended before starting it.
    start();
    this.end(item.entry, record);
    return record;
  }

  private begin(entry: number, info: AttemptInfo | undefined, at = realNow()): void {
    this.options.tally.attemptStarted(entry, at);
    this.options.started?.(info!);
  }

  /**
   * The attempt ended at `at`. It started `elapsedMs` before, which may be earlier than this
   * process heard of its start: an eval process whose target holds its thread says that an
   * attempt began only once it has ended.
   */
  private end(entry: number, record: AttemptRecord, at = realNow()): void {
    const { tally } = this.options;
    this.options.limiter.release(entry);
    tally.attemptEnded(entry, at);
    if (record.elapsedMs > 0 && Number.isFinite(record.elapsedMs))
      tally.attemptStarted(entry, at - record.elapsedMs);
  }

  private jobOf(item: CaseItem, info: AttemptInfo | undefined) {
    return {
      entry: this.options.entries[item.entry]!,
      spec: item.spec,
      trial: item.trial,
      context: this.options.contextFor(item.trial, info),
    };
  }

  private infoOf(item: CaseItem): AttemptInfo | undefined {
    if (!this.options.wantsInfo) return undefined;
    return {
      evalId: this.options.entries[item.entry]!.eval.id,
      caseId: item.spec.id,
      index: item.spec.index,
      trial: item.trial,
    };
  }

  private crashedAttempt(item: CaseItem, error: unknown, startedAt: number | undefined) {
    const { eval: runnable } = this.options.entries[item.entry]!;
    const message = error instanceof Error ? error.message : String(error);
    const record = crashed(
      runnable,
      item.spec,
      `eval "${runnable.id}" crashed on case "${item.spec.id}": ${message}`,
    );
    // The time it really ran (a timed-out attempt ran for its whole limit).
    record.elapsedMs = startedAt === undefined ? 0 : realNow() - startedAt;
    return record;
  }
}
