import { errorMessage } from "../errors.js";
import { IdSet } from "../eval/ids.js";
import { type AttemptRecord, erroredRecord } from "../eval/record.js";
import type { CaseSpec } from "../eval/runnable.js";
import type { RunEntry } from "./entry.js";

/**
 * What the engine pulls, in report order: each eval's start, its attempts (the trials of a case
 * one after another), and its end. An attempt that carries a `record` is already decided (a
 * duplicate id, a broken case source, or, later, an attempt resumed from a store) and is not run.
 */
export type SourceItem =
  | { type: "eval-start"; entry: number }
  | { type: "case"; entry: number; spec: CaseSpec; trial: number; record?: AttemptRecord }
  | { type: "eval-end"; entry: number };

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
}

/** The default source: every eval's cases, in eval order then case order, each case `trials` times. */
export function evalCases(options: EvalCasesOptions = {}): CaseSource {
  const select = options.select ?? [];
  return async function* (entries, signal) {
    for (let entry = 0; entry < entries.length; entry++) {
      const runnable = entries[entry]!.eval;
      const trials = trialsOf(runnable.trials ?? options.trials);
      yield { type: "eval-start", entry };
      // Every eval is started and ended, even after a cancel: sinks always see its end.
      const seen = new IdSet();
      // The attempts of one case: one item in the common case, so no generator per case.
      const attemptsOf = (spec: CaseSpec): SourceItem | SourceItem[] | undefined => {
        options.onCase?.(entry, spec);
        const duplicate = !seen.add(spec.id);
        if (trials === 1 && !duplicate) {
          if (!selected(select, runnable.id, spec.id, 0)) return undefined;
          return { type: "case", entry, spec, trial: 0 };
        }
        const items: SourceItem[] = [];
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
            spec,
            trial,
            record: crashed(runnable.id, spec, message),
          });
        }
        return items.length === 1 ? items[0] : items.length === 0 ? undefined : items;
      };
      try {
        const cases = signal.aborted ? [] : runnable.cases();
        // A synchronous dataset is walked synchronously: no promise per case to read it.
        if (Symbol.iterator in cases) {
          for (const spec of cases as Iterable<CaseSpec>) {
            if (signal.aborted) break;
            const items = attemptsOf(spec);
            if (items === undefined) continue;
            if (!Array.isArray(items)) yield items;
            else for (const item of items) yield item;
          }
        } else {
          for await (const spec of cases) {
            if (signal.aborted) break;
            const items = attemptsOf(spec);
            if (items === undefined) continue;
            if (!Array.isArray(items)) yield items;
            else for (const item of items) yield item;
          }
        }
      } catch (error) {
        // A broken case source is one errored case; the other evals still run.
        const spec: CaseSpec = { id: "(cases)", index: -1 };
        const message = `reading the cases of eval "${runnable.id}" failed: ${errorMessage(error)}`;
        yield { type: "case", entry, spec, trial: 0, record: crashed(runnable.id, spec, message) };
      }
      yield { type: "eval-end", entry };
    }
  };
}

function selected(select: readonly CaseSelector[], evalId: string, caseId: string, trial: number) {
  for (const keep of select) if (!keep(evalId, caseId, trial)) return false;
  return true;
}

/** A positive whole number of trials; anything else is 1. */
export function trialsOf(value: number | undefined): number {
  return value !== undefined && Number.isInteger(value) && value >= 1 ? value : 1;
}

/** The record of an attempt that never reached the eval. */
export function crashed(evalId: string, spec: CaseSpec, message: string): AttemptRecord {
  return erroredRecord({
    evalId,
    caseId: spec.id,
    message,
    where: `eval "${evalId}", case "${spec.id}"`,
  });
}
