import { errorMessage } from "../errors.js";
import type { AttemptRecord } from "../eval/record.js";
import type { AttemptContext, CaseSpec } from "../eval/runnable.js";
import { capRunValues } from "../eval/value-cap.js";
import { judgeLedgersOpen, withJudgeLedger } from "../judge/ledger.js";
import { isThenable } from "../tool/run-tool.js";
import { keptRecord } from "./cut-off.js";
import type { RunEntry } from "./entry.js";
import { crashed } from "./source.js";
import { putBack, type Tampered, tamperedMessage, together, watchAttempt } from "./tampered.js";

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
  executeNow?: ((job: AttemptJob) => AttemptRecord | Promise<AttemptRecord>) | undefined;
  /**
   * Attempts beyond the run's concurrency this executor wants handed to it ahead of time (default
   * 0), so that one in another process always has the next attempt at hand instead of waiting for
   * this one between attempts. Each such attempt comes with a {@link AttemptQueue}: the executor
   * starts at most its `concurrency` at once and calls `started` as each starts. An eval's own
   * concurrency still caps what is handed over, queued or not.
   */
  readonly prefetch?: number | undefined;
  /**
   * The record of this attempt when the executor already has it, finished: one that runs a run's
   * attempts on its own ahead of the engine (a supervised eval process) hands it over here, and
   * the engine then neither executes nor waits for it, and counts the attempt's time as it really
   * ran. Optional.
   */
  takeFinished?:
    | ((entry: RunEntry, spec: CaseSpec, trial: number) => TakenAttempt | undefined)
    | undefined;
  /**
   * What such an executor began ahead of the engine. A stopped run reads on through its cases
   * (no new attempt starts) while some may still be waiting for the engine to reach them, so each
   * is reported, finished or cut off. Optional.
   */
  readonly ranAhead?: RanAhead | undefined;
  /**
   * The run asks for no more attempts (its workers are done; the reporters and the store are still
   * finishing): the executor may start letting go of what it holds. Optional; close() follows.
   */
  finished?: (() => void) | undefined;
  /** Release what the executor holds (child processes, connections). */
  close?: (() => Promise<void>) | undefined;
  /**
   * Errors in user code that belonged to no attempt (an unhandled rejection in an eval process
   * while several attempts ran), as they happen: the run's summary lists them and is not ok.
   */
  readonly runErrors?: readonly { message: string; where: string }[] | undefined;
}

/** Attempts an executor began ahead of the engine ({@link Executor.ranAhead}). */
export interface RanAhead {
  /** Whether some may still be waiting for the engine to reach their cases. */
  outstanding(): boolean;
  /** Call `listener` whenever {@link outstanding} may have changed. */
  watch(listener: () => void): void;
}

/** A finished attempt handed over by {@link Executor.takeFinished}. */
export interface TakenAttempt {
  record: AttemptRecord;
  /** When it started and ended, on this process's `performance.now()` clock. */
  startedAt: number;
  endedAt: number;
}

/** Runs attempts in this process, inside a judge-usage ledger. */
export const inProcessExecutor: Executor & {
  executeNow(job: AttemptJob): AttemptRecord | Promise<AttemptRecord>;
} = {
  async execute({ entry, spec, context }) {
    const runnable = entry.eval;
    watchAttempt();
    let replaced: Tampered | undefined;
    let record: AttemptRecord;
    try {
      if (!judgeLedgersOpen()) {
        const running = runnable.runCase(spec, context);
        // Put back at once what the attempt's synchronous part replaced: the engine goes on
        // while the attempt runs (but the clock, timers and fetch, which it may replace until it ends).
        replaced = putBack(false);
        record = await running;
      } else {
        const running = withJudgeLedger(() => runnable.runCase(spec, context), context.signal);
        replaced = putBack(false);
        const { result, usage } = await running;
        // Judge calls the eval did not attribute to a judgment still belong to the attempt.
        if (usage.calls > result.usage.judge.calls) result.usage.judge = usage;
        record = result;
      }
    } catch (error) {
      record = crashedCase(runnable, spec, error);
    }
    return keptRecord(guarded(runnable, spec, record, replaced), context);
  },
  executeNow(job) {
    const { entry, spec, context } = job;
    const runnable = entry.eval;
    // A judge ledger spans the attempt's promises; without a way to answer at once, the same.
    if (judgeLedgersOpen() || !runnable.runCaseNow) return this.execute(job);
    watchAttempt();
    let record: AttemptRecord | Promise<AttemptRecord>;
    try {
      record = runnable.runCaseNow(spec, context);
    } catch (error) {
      record = crashedCase(runnable, spec, error);
    }
    if (!isPromise(record)) return guarded(runnable, spec, record, undefined);
    // As in execute: what the synchronous part replaced is put back before the engine goes on.
    // Only an attempt that waits can see the run stop while it runs.
    const replaced = putBack(false);
    return record.then(
      (done) => keptRecord(guarded(runnable, spec, done, replaced), context),
      (error: unknown) => guarded(runnable, spec, crashedCase(runnable, spec, error), replaced),
    );
  },
};

/**
 * The record, or an errored one when the attempt replaced globals the engine relies on or removed
 * process listeners niceeval keeps (now put back): `earlier`, found while it ran, and any found
 * as it ends. Every record an attempt run here gives passes through it, so its values are capped
 * here too (value-cap.ts).
 */
function guarded(
  runnable: RunEntry["eval"],
  spec: CaseSpec,
  record: AttemptRecord,
  earlier: Tampered | undefined,
): AttemptRecord {
  // Scored as it came; kept (in reports, the store, the eval process's messages) within bounds.
  capRunValues(record);
  const ended = putBack(true, earlier);
  const tampered = together(earlier, ended);
  if (tampered === undefined) return record;
  if (record.error) return withTampered(record, record.error, tampered, stillHeld(earlier, ended));
  const errored = crashed(runnable, spec, tamperedMessage(tampered));
  // A replaced clock may have made the attempt's own figure meaningless.
  errored.elapsedMs =
    record.elapsedMs > 0 && Number.isFinite(record.elapsedMs) ? record.elapsedMs : 0;
  return errored;
}

/**
 * What an attempt held (the clock, timers, fetch, a capture callback: tampered.ts) and still had
 * in place as it ended: the names, and whether the capture callback was one.
 */
function stillHeld(
  earlier: Tampered | undefined,
  ended: Tampered | undefined,
): { globals: string[]; capture: boolean } {
  const held = earlier?.held ?? [];
  return {
    globals: (ended?.globals ?? []).filter((name) => held.includes(name)),
    capture: earlier?.holdsCapture === true && ended?.capture === true,
  };
}

/**
 * An attempt that ended with an error of its own (its time limit, what it threw) keeps it: that
 * is why it ended. What it replaced is said after it; what it held and had not put back yet (cut
 * off at its limit before the `finally` that would) is said as that, not as a mistake to fix.
 */
function withTampered(
  record: AttemptRecord,
  error: NonNullable<AttemptRecord["error"]>,
  tampered: Tampered,
  held: { globals: string[]; capture: boolean },
): AttemptRecord {
  const notes: string[] = [];
  if (held.globals.length > 0) {
    const one = held.globals.length === 1;
    notes.push(
      `it still held ${held.globals.join(", ")} as it was cut off (its code had not put ${one ? "it" : "them"} back): niceeval put the original${one ? "" : "s"} back for the attempts after it`,
    );
  }
  if (held.capture)
    notes.push(
      "it still had its uncaught-exception capture callback installed as it was cut off: niceeval removed it for the attempts after it",
    );
  const rest: Tampered = {
    globals: tampered.globals?.filter((name) => !held.globals.includes(name)),
    listeners: tampered.listeners,
    capture: tampered.capture && !held.capture ? true : undefined,
  };
  const more = tamperedMessage(rest);
  if (more) notes.push(more);
  if (notes.length === 0) return record;
  const message = `${error.message}; ${notes.join("; and ")}`;
  const was = `${error.where}: ${error.message}`;
  return {
    ...record,
    score: {
      ...record.score,
      reasons: record.score.reasons.map((r) => (r === was ? `${error.where}: ${message}` : r)),
    },
    error: { ...error, message },
  };
}

function crashedCase(runnable: RunEntry["eval"], spec: CaseSpec, error: unknown): AttemptRecord {
  return crashed(
    runnable,
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
