import { errorMessage } from "../errors.js";
import type { AttemptRecord } from "../eval/record.js";
import type { AttemptContext, CaseSpec } from "../eval/runnable.js";
import { judgeLedgersOpen, withJudgeLedger } from "../judge/ledger.js";
import { isThenable } from "../tool/run-tool.js";
import type { RunEntry } from "./entry.js";
import { crashed } from "./source.js";

/** One attempt to execute: which eval, which case, which trial, and the context to give it. */
export interface AttemptJob {
  readonly entry: RunEntry;
  readonly spec: CaseSpec;
  readonly trial: number;
  readonly context: AttemptContext;
  /**
   * Given when the executor asked for attempts ahead ({@link Executor.prefetch}): this attempt may
   * wait on the executor's side before it starts.
   */
  readonly queue?: AttemptQueue;
}

/** What an executor that queues attempts must keep to: the run's concurrency, and when each starts. */
export interface AttemptQueue {
  /** The run's attempts running at once may not exceed this, queued ones aside. */
  readonly concurrency: number;
  /**
   * Call when the attempt really starts (once; later calls are ignored). The engine's time limit
   * and its `onAttemptStarted` hook count from here, not from when the attempt was handed over.
   */
  readonly started: () => void;
}

/**
 * How an attempt executes. In process by default; a supervised child process or a queue
 * worker is another Executor. It resolves to a record and never rejects for the attempt's own
 * failures (those are data on the record).
 */
export interface Executor {
  execute(job: AttemptJob): Promise<AttemptRecord>;
  /**
   * Like {@link execute}, but an attempt that finishes at once gives its record itself: a run of
   * synchronous targets and scorers then pays no promise, timer or queue per attempt (nothing
   * could have stopped a synchronous attempt anyway). Optional; not used with {@link prefetch}.
   */
  executeNow?(job: AttemptJob): AttemptRecord | Promise<AttemptRecord>;
  /**
   * Attempts beyond the run's concurrency this executor wants handed to it ahead of time (default
   * 0), so that one in another process always has the next attempt at hand instead of waiting for
   * this one between attempts. Each such attempt comes with a {@link AttemptQueue}: the executor
   * starts at most its `concurrency` at once and calls `started` as each starts. An eval's own
   * concurrency still caps what is handed over, queued or not.
   */
  readonly prefetch?: number;
  /**
   * The record of this attempt when the executor already has it, finished: one that runs a run's
   * attempts on its own ahead of the engine (a supervised eval process) hands it over here, and
   * the engine then neither executes nor waits for it. Optional.
   */
  takeFinished?(entry: RunEntry, spec: CaseSpec, trial: number): AttemptRecord | undefined;
  /**
   * The run asks for no more attempts (its workers are done; the reporters and the store are still
   * finishing): the executor may start letting go of what it holds. Optional; close() follows.
   */
  finished?(): void;
  /** Release what the executor holds (child processes, connections). */
  close?(): Promise<void>;
}

/** Runs attempts in this process, inside a judge-usage ledger. */
export const inProcessExecutor: Executor & Required<Pick<Executor, "executeNow">> = {
  async execute({ entry, spec, context }) {
    const runnable = entry.eval;
    try {
      if (!judgeLedgersOpen()) return await runnable.runCase(spec, context);
      const { result, usage } = await withJudgeLedger(() => runnable.runCase(spec, context));
      // Judge calls the eval did not attribute to a judgment still belong to the attempt.
      if (usage.calls > result.usage.judge.calls) result.usage.judge = usage;
      return result;
    } catch (error) {
      return crashedCase(runnable, spec, error);
    }
  },
  executeNow(job) {
    const { entry, spec, context } = job;
    const runnable = entry.eval;
    // A judge ledger spans the attempt's promises; without a way to answer at once, the same.
    if (judgeLedgersOpen() || !runnable.runCaseNow) return this.execute(job);
    try {
      const record = runnable.runCaseNow(spec, context);
      return isPromise(record)
        ? record.catch((error: unknown) => crashedCase(runnable, spec, error))
        : record;
    } catch (error) {
      return crashedCase(runnable, spec, error);
    }
  },
};

function crashedCase(runnable: RunEntry["eval"], spec: CaseSpec, error: unknown): AttemptRecord {
  return crashed(
    runnable.id,
    spec,
    `eval "${runnable.id}" crashed on case "${spec.id}": ${errorMessage(error)}`,
  );
}

/**
 * Give a record's judgments to the attempt's `onJudgment`, for an executor whose attempt ran where
 * they could not be streamed (a queue worker, an eval process running ahead).
 */
export function replayJudgments(context: AttemptContext, record: AttemptRecord): void {
  const { onJudgment } = context;
  if (onJudgment) for (const judgment of record.judgments) onJudgment(judgment);
}

/** Whether an executor's answer is still to come (a thenable, as `await` sees it). */
export function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return isThenable(value);
}
