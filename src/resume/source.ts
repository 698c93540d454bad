import { setTimeout } from "../clock.js";
import { attemptKey, DATASET_ERROR_ID } from "../eval/ids.js";
import type { AttemptRecord } from "../eval/record.js";
import type { CaseSpec } from "../eval/runnable.js";
import type { RunEntry } from "../runner/entry.js";
import { casesOptions, type RunOptions } from "../runner/run.js";
import { type CaseSelector, type CaseSource, evalCases } from "../runner/source.js";
import { isAborted } from "../signal-state.js";
import type { AttemptKey, Store } from "../store/types.js";
import type { ResumeMode } from "./find.js";

/** The stored attempts a continuation keeps, and how many it runs again. */
export interface KeptAttempts {
  /** Their {@link attemptKey}s. */
  keys: Set<string>;
  /** Stored attempts that will run again (the errored ones, with `--retry-errors`). */
  retried: number;
  /**
   * The {@link attemptKey}s of the stored attempts that run again (but datasets' errors): until
   * their new attempt finishes, the store still holds them.
   */
  again: Set<string>;
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
  const again = new Set<string>();
  const unread: AttemptKey[] = [];
  let retried = 0;
  for await (const k of store.attemptKeys(runId)) {
    if (k.caseId === DATASET_ERROR_ID) {
      unread.push(k);
      retried++;
    } else if (k.interrupted || (mode === "retry-errors" && k.verdict === "errored")) {
      again.add(attemptKey(k.evalId, k.caseId, k.trial));
      retried++;
    } else keys.add(attemptKey(k.evalId, k.caseId, k.trial));
  }
  return { keys, retried, again, unread };
}

/**
 * The run's own cases, where each kept attempt comes with its stored record instead of running:
 * the engine then reports, tallies and summarises the continued run exactly as an uninterrupted
 * one. Stored records are read in one pass in case order, which is the source's order when the
 * evals did not change; one read ahead of its turn waits in a map until its case comes.
 * `fromStore` tells a record read back from the store, so the store sink does not write it again.
 *
 * A continuation that is stopped reports what the store then holds, as the run's report must:
 * a stored attempt that was to run again but did not start (queued ahead when the stop came)
 * stands for itself (`standIn`), and at the end of each eval the stop cut short the stored
 * attempts the run never reached are read back and reported, kept or to be run again alike.
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
  const standIns = standInLoader(store, runId, read);
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
      // The attempts of the eval being read that went to the engine, run or read back.
      let given = new Set<string>();
      try {
        for await (const item of inner(entries, signal)) {
          if (item.type === "eval-start") given = new Set();
          else if (item.type === "eval-end" && isAborted(signal)) {
            // Stopped: the stored attempts of this eval it did not reach are still the run's.
            for await (const record of unreachedAttempts(
              store,
              runId,
              entries,
              item.entry,
              given,
            )) {
              read.add(record);
              const key = attemptKey(record.evalId, record.caseId, record.trial ?? 0);
              yield {
                type: "case",
                entry: item.entry,
                spec: specOf(record),
                trial: record.trial ?? 0,
                record,
                ...(kept.again.has(key) ? { notRunAgain: true as const } : {}),
              };
            }
          } else if (item.type === "case") {
            const evalId = entries[item.entry]!.eval.id;
            const key = attemptKey(evalId, item.spec.id, item.trial);
            given.add(key);
            // A case the source errored itself (a duplicate id) was stored as such: read back too.
            if (kept.keys.has(key)) {
              const record = await stored(key);
              if (record) {
                read.add(record);
                reached++;
                yield { ...item, record };
                continue;
              }
            }
            if (!item.record && kept.again.has(key)) {
              yield { ...item, standIn: () => standIns(evalId, key) };
              continue;
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

/**
 * The stored attempts of an eval a stopped continuation did not give the engine, in case order:
 * read back so that the report holds what the store holds. A store that cannot be read now
 * leaves them out of the report (its failure is the store's to report).
 */
async function* unreachedAttempts(
  store: Store,
  runId: string,
  entries: readonly RunEntry[],
  entry: number,
  given: ReadonlySet<string>,
): AsyncGenerator<AttemptRecord> {
  const evalId = entries[entry]!.eval.id;
  try {
    for await (const record of store.streamAttempts(runId, { evalId })) {
      if (!given.has(attemptKey(evalId, record.caseId, record.trial ?? 0))) yield record;
    }
  } catch {
    // Left out of the report; the stored run still holds them.
  }
}

/**
 * The stored attempts of a stopped continuation that were to run again and did not start, read
 * back by eval: the lookups that come together (the attempts queued ahead, ended at the stop)
 * share one pass over the eval's stored attempts.
 */
function standInLoader(
  store: Store,
  runId: string,
  read: WeakSet<AttemptRecord>,
): (evalId: string, key: string) => Promise<AttemptRecord | undefined> {
  const pending = new Map<string, Map<string, (record: AttemptRecord | undefined) => void>>();
  const look = async (evalId: string) => {
    const wanted = pending.get(evalId)!;
    pending.delete(evalId);
    try {
      for await (const record of store.streamAttempts(runId, { evalId })) {
        const key = attemptKey(evalId, record.caseId, record.trial ?? 0);
        const found = wanted.get(key);
        if (!found) continue;
        read.add(record);
        found(record);
        wanted.delete(key);
        if (wanted.size === 0) break;
      }
    } catch {
      // Left out of the report, as an attempt that did not start is; the store still holds it.
    } finally {
      for (const found of wanted.values()) found(undefined);
    }
  };
  return (evalId, key) =>
    new Promise((resolve) => {
      let wanted = pending.get(evalId);
      if (!wanted) {
        wanted = new Map();
        pending.set(evalId, wanted);
        setTimeout(() => void look(evalId), 0);
      }
      wanted.set(key, resolve);
    });
}

/** The case of a stored attempt, as the engine describes a record by it. */
function specOf(record: AttemptRecord): CaseSpec {
  return {
    id: record.caseId,
    index: record.index ?? -1,
    ...(record.input !== undefined ? { input: record.input } : {}),
    ...(record.expected !== undefined ? { expected: record.expected } : {}),
    ...(record.metadata !== undefined ? { metadata: record.metadata } : {}),
    ...(record.cluster !== undefined ? { cluster: record.cluster } : {}),
  };
}
