import { attemptKey, DATASET_ERROR_ID } from "../eval/ids.js";
import type { AttemptRecord } from "../eval/record.js";
import { casesOptions, type RunOptions } from "../runner/run.js";
import { type CaseSelector, type CaseSource, evalCases } from "../runner/source.js";
import type { AttemptKey, Store } from "../store/types.js";
import type { ResumeMode } from "./find.js";

/** The stored attempts a continuation keeps, and how many it runs again. */
export interface KeptAttempts {
  /** Their {@link attemptKey}s. */
  keys: Set<string>;
  /** Stored attempts that will run again (the errored ones, with `--retry-errors`). */
  retried: number;
  /**
   * Stored errors of datasets that could not be read: the continuation reads every dataset
   * again, so these leave the run when it begins (`BeginRunOptions.retire`), and a read that
   * fails again stores a new one.
   */
  unread: AttemptKey[];
}

/**
 * The keys a continuation keeps, read without the attempts' values: every stored attempt but
 * those the stop cut off (`--resume`), or every one that did not error (`--retry-errors`), and
 * never a dataset's error.
 */
export async function keptAttempts(
  store: Store,
  runId: string,
  mode: ResumeMode,
): Promise<KeptAttempts> {
  const keys = new Set<string>();
  const unread: AttemptKey[] = [];
  let retried = 0;
  for await (const k of store.attemptKeys(runId)) {
    if (k.caseId === DATASET_ERROR_ID) {
      unread.push(k);
      retried++;
    } else if (k.interrupted || (mode === "retry-errors" && k.verdict === "errored")) retried++;
    else keys.add(attemptKey(k.evalId, k.caseId, k.trial));
  }
  return { keys, retried, unread };
}

/**
 * The run's own cases, where each kept attempt comes with its stored record instead of running:
 * the engine then reports, tallies and summarises the continued run exactly as an uninterrupted
 * one. Stored records are read in one pass in case order, which is the source's order when the
 * evals did not change; one read ahead of its turn waits in a map until its case comes.
 * `fromStore` tells a record read back from the store, so the store sink does not write it again.
 */
export function continuedRun(
  store: Store,
  runId: string,
  kept: KeptAttempts,
): {
  withSource(options: RunOptions): RunOptions;
  fromStore(record: AttemptRecord): boolean;
  /** Kept attempts whose case the evals did not give (read once the source has ended). */
  unreached(): number;
} {
  const read = new WeakSet<AttemptRecord>();
  let reached = 0;
  const source = (options: RunOptions): CaseSource => {
    const filter = options.filter;
    const select: CaseSelector[] = [
      ...(filter ? [(evalId: string, caseId: string) => filter(evalId, caseId)] : []),
      ...(options.select ?? []),
    ];
    const inner = evalCases(casesOptions(options, select));
    return async function* (entries, signal) {
      let stream: AsyncIterator<AttemptRecord> | undefined;
      const waiting = new Map<string, AttemptRecord>();
      const stored = async (key: string): Promise<AttemptRecord | undefined> => {
        const early = waiting.get(key);
        if (early) {
          waiting.delete(key);
          return early;
        }
        stream ??= store.streamAttempts(runId)[Symbol.asyncIterator]();
        for (;;) {
          const next = await stream.next();
          if (next.done) return undefined;
          const record = next.value;
          const k = attemptKey(record.evalId, record.caseId, record.trial ?? 0);
          if (k === key) return record;
          // Attempts written by this run, or run again, are not kept.
          if (kept.keys.has(k)) waiting.set(k, record);
        }
      };
      try {
        for await (const item of inner(entries, signal)) {
          if (item.type === "case" && !item.record) {
            const key = attemptKey(entries[item.entry]!.eval.id, item.spec.id, item.trial);
            if (kept.keys.has(key)) {
              const record = await stored(key);
              if (record) {
                read.add(record);
                reached++;
                yield { ...item, record };
                continue;
              }
            }
          }
          yield item;
        }
      } finally {
        await stream?.return?.();
      }
    };
  };
  return {
    withSource: (options) => ({ ...options, source: source(options) }),
    fromStore: (record) => read.has(record),
    unreached: () => kept.keys.size - reached,
  };
}
