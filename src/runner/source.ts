import { clearTimeout, setTimeout } from "../clock.js";
import { DefinitionError, thrownWhere } from "../errors.js";
import { DATASET_ERROR_ID, IdSet } from "../eval/ids.js";
import { type AttemptRecord, erroredRecord } from "../eval/record.js";
import type { CaseSpec, Runnable } from "../eval/runnable.js";
import { clampTimer } from "../eval/timeout.js";
import { isAborted } from "../signal-state.js";
import type { RunEntry } from "./entry.js";

/**
 * What the engine pulls, in report order: each eval's start, its attempts (the trials of a case
 * one after another), and its end. An attempt that carries a `record` is already decided (a
 * duplicate id, a broken case source, or, later, an attempt resumed from a store) and is not run.
 */
export type SourceItem =
  | { type: "eval-start"; entry: number }
  | {
      type: "case";
      entry: number;
      spec: CaseSpec;
      trial: number;
      record?: AttemptRecord | undefined;
      /**
       * The record that stands for the attempt when the run is stopped before it starts (a
       * continuation's stored attempt, which the store still holds): reported in its place.
       */
      standIn?: (() => Promise<AttemptRecord | undefined>) | undefined;
      /**
       * `record` is a stored attempt the continuation was to run again, read back because the
       * stop came before it was reached: counted as not run again (StoppedRun.notRunAgain).
       */
      notRunAgain?: true | undefined;
    }
  | {
      type: "eval-end";
      entry: number;
      /** The run's stop ended the reading of its cases before its dataset ended (or began). */
      cut?: true | undefined;
    };

/** Keeps an attempt when it returns true: a filter, a shard, a resume all have this shape. */
export type CaseSelector = (evalId: string, caseId: string, trial: number) => boolean;

/** Where the engine's attempts come from. */
export type CaseSource = (
  entries: readonly RunEntry[],
  signal: AbortSignal,
) => AsyncIterable<SourceItem>;

/** Options of {@link evalCases}. */
export interface EvalCasesOptions {
  /** Trials of every case (an eval's own `trials` wins). Default 1. */
  trials?: number;
  /** Every selector must keep an attempt for it to run. */
  select?: readonly CaseSelector[];
  /** Called with each case an eval yields, selected or not (dataset hashing). */
  onCase?: (entry: number, spec: CaseSpec) => void;
  /**
   * Called once an eval's cases were all read: its dataset ended (or broke), the run's stop did
   * not cut the reading short.
   */
  onCasesRead?: (entry: number) => void;
  /**
   * Longest wait for an asynchronous dataset's next case, ms; past it the dataset is closed and
   * its eval gets an errored "(cases)" attempt. Default: no limit.
   */
  caseWaitMs?: number;
}

/**
 * What the engine pulls from: an async iterator that may also answer at once. `nextNow` gives
 * the next item when it is there without waiting (a synchronous dataset), or undefined when the
 * caller must use `next` (an asynchronous dataset, or another `next` still pending: order is kept).
 */
export interface SourceIterator extends AsyncIterator<SourceItem> {
  nextNow?(): IteratorResult<SourceItem> | undefined;
}

/**
 * An asynchronous dataset's iterator that reads ahead: `nextNow` gives its next case when it
 * holds it, undefined when `next` must be waited for.
 */
export interface BufferedCases extends AsyncIterator<CaseSpec> {
  nextNow(): IteratorResult<CaseSpec> | undefined;
  /** Once it is done: the run's stop ended the reading, not the dataset (a supervised run's). */
  cut?: boolean;
}

/** A step of the walk: an item, or a dataset's next case to wait for. */
type Step = SourceItem | { wait: Promise<IteratorResult<CaseSpec>> };

/** The default source: every eval's cases, in eval order then case order, each case `trials` times. */
export function evalCases(options: EvalCasesOptions = {}): CaseSource {
  return (entries, signal) => ({
    [Symbol.asyncIterator]: () => new WalkIterator(walkCases(entries, signal, options)),
  });
}

/**
 * The walk over every eval's cases, synchronous: where an asynchronous dataset must be waited for,
 * it yields the promise of that dataset's next case and is resumed with what it settled to.
 */
function* walkCases(
  entries: readonly RunEntry[],
  signal: AbortSignal,
  options: EvalCasesOptions,
): Generator<Step, void, IteratorResult<CaseSpec> | undefined> {
  const select = options.select ?? [];
  for (let entry = 0; entry < entries.length; entry++) {
    const runnable = entries[entry]!.eval;
    const trials = trialsOf(runnable.trials ?? options.trials);
    yield { type: "eval-start", entry };
    // Every eval is started and ended, even after a cancel: sinks always see its end.
    const seen = new IdSet();
    /** Where a case after those read so far goes: a dataset error is stored there, as shown. */
    let after = 0;
    // The attempts of one case: one item in the common case, so no array per case.
    const attemptsOf = (spec: CaseSpec): SourceItem | SourceItem[] | undefined => {
      options.onCase?.(entry, spec);
      after = Math.max(after, spec.index + 1);
      const duplicate = !seen.add(spec.id);
      if (trials === 1 && !duplicate) {
        if (!selected(select, runnable.id, spec.id, 0)) return undefined;
        return { type: "case", entry, spec, trial: 0 };
      }
      const items: SourceItem[] = [];
      // A second case of the same id is reported under an id of its own, so the store (keyed by
      // case id) keeps both the first case and this error.
      const reported = duplicate ? { ...spec, id: duplicateId(seen, spec.id) } : spec;
      for (let trial = 0; trial < trials; trial++) {
        if (!selected(select, runnable.id, spec.id, trial)) continue;
        if (!duplicate) {
          items.push({ type: "case", entry, spec, trial });
          continue;
        }
        const message = `case id "${spec.id}" appears twice in eval "${runnable.id}"; give each case a unique id`;
        items.push({
          type: "case",
          entry,
          spec: reported,
          trial,
          record: crashed(runnable, reported, message),
        });
      }
      return items.length === 1 ? items[0] : items.length === 0 ? undefined : items;
    };
    /** The run's stop ended the reading before the dataset did. */
    let cut = isAborted(signal);
    try {
      const cases = cut ? [] : runnable.cases();
      if (Symbol.iterator in cases) {
        for (const spec of cases as Iterable<CaseSpec>) {
          if (isAborted(signal)) {
            cut = true;
            break;
          }
          const items = attemptsOf(spec);
          if (items === undefined) continue;
          if (!Array.isArray(items)) yield items;
          else yield* items;
        }
      } else {
        const iterator = (cases as AsyncIterable<CaseSpec>)[Symbol.asyncIterator]() as
          | AsyncIterator<CaseSpec>
          | BufferedCases;
        let exhausted = false;
        try {
          for (;;) {
            // A dataset that reads ahead gives what it holds at once (nextNow).
            const next =
              ("nextNow" in iterator ? iterator.nextNow() : undefined) ??
              (yield { wait: nextCase(iterator, signal, options.caseWaitMs) })!;
            // An abort ends the wait (a dataset that never answers must not hold the run).
            if (isAborted(signal)) {
              cut = true;
              break;
            }
            if (next.done) {
              exhausted = true;
              if ("cut" in iterator && iterator.cut) cut = true;
              break;
            }
            const items = attemptsOf(next.value);
            if (items === undefined) continue;
            if (!Array.isArray(items)) yield items;
            else yield* items;
          }
        } finally {
          // Stopped early (an abort, or the walk itself ended): the dataset is closed, as
          // `for await` would.
          if (!exhausted) void Promise.resolve(iterator.return?.()).catch(() => {});
        }
      }
    } catch (error) {
      // A broken case source is one errored case; the other evals still run.
      yield datasetError(runnable.id, entry, after, error);
    }
    if (!cut) options.onCasesRead?.(entry);
    yield cut ? { type: "eval-end", entry, cut: true } : { type: "eval-end", entry };
  }
}

/** The errored attempt `(cases)` standing for a dataset that failed, after the cases read before. */
function datasetError(evalId: string, entry: number, after: number, error: unknown): SourceItem {
  const spec: CaseSpec = { id: DATASET_ERROR_ID, index: after };
  const message =
    error instanceof DefinitionError
      ? `eval "${evalId}" cannot run: ${error.message}`
      : `reading the cases of eval "${evalId}" failed: ${thrownWhere(error)}`;
  return { type: "case", entry, spec, trial: 0, record: crashed({ id: evalId }, spec, message) };
}

const DONE: IteratorResult<SourceItem> = { done: true, value: undefined };

/**
 * A dataset's next case, or an end to the wait: the run's abort settles it (the walk then stops
 * reading), and past `waitMs` it rejects with what to do.
 */
export function nextCase(
  iterator: AsyncIterator<CaseSpec>,
  signal: AbortSignal,
  waitMs: number | undefined,
): Promise<IteratorResult<CaseSpec>> {
  const next = iterator.next();
  if (isAborted(signal)) return Promise.resolve({ done: true, value: undefined });
  return new Promise((resolve, reject) => {
    const stop = () => resolve({ done: true, value: undefined });
    const timer =
      waitMs === undefined
        ? undefined
        : setTimeout(
            () =>
              reject(
                new Error(
                  `its next case did not come within ${formatWait(waitMs)}; make the dataset faster, or raise the limit (--hang-timeout)`,
                ),
              ),
            clampTimer(waitMs),
          );
    signal.addEventListener("abort", stop, { once: true });
    const settle = () => {
      if (timer !== undefined) clearTimeout(timer);
      signal.removeEventListener("abort", stop);
    };
    next.then(
      (result) => {
        settle();
        resolve(result);
      },
      (error: unknown) => {
        settle();
        reject(error);
      },
    );
  });
}

const formatWait = (ms: number) => (ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

/**
 * Drives a walk: items it reaches without waiting are given at once (`nextNow`); `next` waits
 * for an asynchronous dataset when the walk asks, and calls are answered in the order made.
 */
class WalkIterator implements SourceIterator {
  /** A dataset's next case the walk waits for. */
  private wait: Promise<IteratorResult<CaseSpec>> | undefined;
  /** `next` calls not yet answered, chained in order. */
  private queue: Promise<unknown> = Promise.resolve();
  private queued = 0;
  private finished = false;

  constructor(private readonly walk: Generator<Step, void, IteratorResult<CaseSpec> | undefined>) {}

  nextNow(): IteratorResult<SourceItem> | undefined {
    if (this.queued > 0 || this.wait) return undefined;
    return this.step(() => this.walk.next());
  }

  next(): Promise<IteratorResult<SourceItem>> {
    if (this.queued === 0 && !this.wait) {
      const now = this.step(() => this.walk.next());
      if (now) return Promise.resolve(now);
    }
    this.queued++;
    const answer = this.queue.then(() => this.advance());
    this.queue = answer.then(
      () => this.queued--,
      () => this.queued--,
    );
    return answer;
  }

  async return(): Promise<IteratorResult<SourceItem>> {
    this.finished = true;
    this.walk.return();
    return DONE;
  }

  /** The next item, waiting for datasets as the walk asks. */
  private async advance(): Promise<IteratorResult<SourceItem>> {
    for (;;) {
      const waiting = this.wait;
      if (!waiting) {
        const now = this.step(() => this.walk.next());
        if (now) return now;
        continue;
      }
      let settled: IteratorResult<CaseSpec>;
      try {
        settled = await waiting;
      } catch (error) {
        this.wait = undefined;
        const now = this.step(() => this.walk.throw(error));
        if (now) return now;
        continue;
      }
      this.wait = undefined;
      const now = this.step(() => this.walk.next(settled));
      if (now) return now;
    }
  }

  /** One step of the walk: an item, the end, or undefined when it now waits for a dataset. */
  private step(resume: () => IteratorResult<Step, void>): IteratorResult<SourceItem> | undefined {
    if (this.finished) return DONE;
    const result = resume();
    if (result.done) {
      this.finished = true;
      return DONE;
    }
    const value = result.value;
    if ("wait" in value) {
      this.wait = value.wait;
      return undefined;
    }
    return { done: false, value };
  }
}

function selected(select: readonly CaseSelector[], evalId: string, caseId: string, trial: number) {
  for (const keep of select) if (!keep(evalId, caseId, trial)) return false;
  return true;
}

/** A positive whole number of trials; anything else is 1. */
export function trialsOf(value: number | undefined): number {
  return value !== undefined && Number.isInteger(value) && value >= 1 ? value : 1;
}

/** `<id> (duplicate 2)`, or the first such id not yet seen; it is added to `seen`. */
function duplicateId(seen: IdSet, id: string): string {
  for (let n = 2; ; n++) {
    const candidate = `${id} (duplicate ${n})`;
    if (seen.add(candidate)) return candidate;
  }
}

/**
 * The record of an attempt that never reached the eval or never came back from it: errored, its
 * score unavailable out of the eval's points when they are known (`maxPoints`).
 */
export function crashed(
  of: Pick<Runnable, "id" | "maxPoints">,
  spec: CaseSpec,
  message: string,
): AttemptRecord {
  return erroredRecord({
    evalId: of.id,
    caseId: spec.id,
    message,
    where: `eval "${of.id}", case "${spec.id}"`,
    ...(of.maxPoints !== undefined ? { max: of.maxPoints } : {}),
  });
}
