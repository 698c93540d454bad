import { randomUUID } from "node:crypto";
import { errorMessage, NiceevalError } from "../errors.js";
import {
  type AttemptRecord,
  addJudgeUsage,
  emptyJudgeUsage,
  erroredRecord,
  type JudgeUsage,
  type Judgment,
} from "../eval/record.js";
import type { AttemptContext, CaseSpec, Runnable } from "../eval/runnable.js";
import { withJudgeLedger } from "../judge/ledger.js";
import type { Reporter } from "../report/reporter.js";
import { EVAL_EVENT_SCHEMA, type EvalEvent, type EvalSummary } from "./events.js";
import { EvalAccumulator } from "./stats.js";
import type { Telemetry } from "./telemetry.js";

/** An eval to run, with the file it came from when known. */
export interface RunEntry {
  eval: Runnable;
  file?: string;
}

/** Options of {@link runEvals}. */
export interface RunOptions {
  /** Cases running at once across the run (default 8). */
  concurrency?: number;
  reporters?: readonly Reporter[];
  telemetry?: readonly Telemetry<EvalEvent>[];
  signal?: AbortSignal;
  runId?: string;
  /** Run only the cases for which this returns true. */
  filter?: (evalId: string, caseId: string) => boolean;
  /** Keep each target output on its record. */
  keepOutput?: boolean;
  /** Per-case timeout for targets and adapters, ms. */
  timeoutMs?: number;
  /** Limit on a whole attempt, ms (default: timeoutMs + 1 s, else 10 minutes). */
  caseTimeoutMs?: number;
  /** Called with every record in order; lets callers keep what they need. */
  onRecord?: (record: AttemptRecord) => void;
}

/** Totals over a run. */
export interface RunSummary {
  runId: string;
  startedAt: string;
  elapsedMs: number;
  evals: EvalSummary[];
  totals: {
    evals: number;
    cases: number;
    passed: number;
    failed: number;
    errored: number;
    skipped: number;
  };
  judge: JudgeUsage;
  /** Files that failed to load (set by the CLI). */
  loadErrors: { file: string; message: string }[];
  /** True when nothing failed, errored or failed to load. */
  ok: boolean;
  /** True when the run was cancelled through its signal; cases not yet started did not run. */
  cancelled: boolean;
}

/** Default limit on one attempt when neither the run nor the eval sets one. */
export const DEFAULT_CASE_TIMEOUT_MS = 10 * 60 * 1000;

type Slot =
  | { type: "eval-start"; entry: number }
  | { type: "case"; entry: number; spec: CaseSpec; record?: AttemptRecord }
  | { type: "eval-end"; entry: number };

/**
 * The engine. Streams cases from every eval, runs them with bounded concurrency, and hands
 * records to reporters in case order. Memory is bounded by the reorder window, not the run.
 */
export async function runEvals(
  entries: readonly RunEntry[],
  options: RunOptions = {},
): Promise<RunSummary> {
  const runId = options.runId ?? randomUUID();
  const startedAt = new Date();
  const started = performance.now();
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 8));
  const reporters = options.reporters ?? [];
  const sinks = options.telemetry ?? [];
  const signal = options.signal ?? new AbortController().signal;
  const window = Math.max(256, concurrency * 64);

  for (const reporter of reporters) {
    reporter.onRunStart?.({
      runId,
      evals: entries.length,
      files: new Set(entries.map((e) => e.file)).size,
      concurrency,
    });
  }

  const emitting = sinks.length > 0;
  const emit = (event: EvalEvent) => {
    for (const sink of sinks) {
      try {
        const pending = sink.emit(event);
        if (pending && typeof (pending as Promise<void>).catch === "function") {
          (pending as Promise<void>).catch(() => {});
        }
      } catch {
        // A broken sink must not take the run down.
      }
    }
  };
  const base = (entry: number) => ({
    schema: EVAL_EVENT_SCHEMA,
    runId,
    evalId: entries[entry]!.eval.id,
    timestamp: new Date().toISOString(),
  });

  const accumulators = entries.map((e) => new EvalAccumulator(e.eval.id, e.eval.style));
  const evalStarted: number[] = entries.map(() => 0);
  const summaries: EvalSummary[] = [];
  const runJudge = emptyJudgeUsage();
  const totals = { evals: entries.length, cases: 0, passed: 0, failed: 0, errored: 0, skipped: 0 };
  const perEvalRunning = entries.map(() => 0);
  const perEvalWaiters: (() => void)[][] = entries.map(() => []);

  const slots = new Map<number, Slot>();
  let nextSeq = 0;
  let flushSeq = 0;
  let done = 0;
  const producer: { wake?: (() => void) | undefined } = {};

  const flush = () => {
    for (;;) {
      const slot = slots.get(flushSeq);
      if (!slot) break;
      if (slot.type === "case" && !slot.record) break;
      slots.delete(flushSeq);
      flushSeq++;
      const entry = entries[slot.entry]!;
      if (slot.type === "eval-start") {
        for (const r of reporters)
          r.onEvalStart?.({
            evalId: entry.eval.id,
            style: entry.eval.style,
            ...(entry.file ? { file: entry.file } : {}),
          });
      } else if (slot.type === "case") {
        const record = slot.record!;
        accumulators[slot.entry]!.add(record);
        totals.cases++;
        totals[record.verdict]++;
        addJudgeUsage(runJudge, record.usage.judge);
        options.onRecord?.(record);
        for (const r of reporters) r.onCaseFinished?.(record);
      } else {
        const summary = accumulators[slot.entry]!.finish(
          performance.now() - evalStarted[slot.entry]!,
        );
        summaries.push(summary);
        emit({ ...base(slot.entry), kind: "eval.finished", summary });
        for (const r of reporters) r.onEvalFinished?.(summary);
      }
    }
    const wake = producer.wake;
    if (wake && nextSeq - flushSeq < window) {
      producer.wake = undefined;
      wake();
    }
  };

  async function* schedule(): AsyncGenerator<{ seq: number; slot: Slot }> {
    for (let index = 0; index < entries.length; index++) {
      const entry = entries[index]!;
      evalStarted[index] = performance.now();
      emit({
        ...base(index),
        kind: "eval.started",
        style: entry.eval.style,
        ...(entry.file ? { file: entry.file } : {}),
      });
      const startSlot: Slot = { type: "eval-start", entry: index };
      slots.set(nextSeq++, startSlot);
      flush();
      // Every eval is started and finished, even after a cancel: sinks always see eval.finished.
      const seen = new Set<string>();
      try {
        for await (const spec of signal.aborted ? [] : entry.eval.cases()) {
          if (signal.aborted) break;
          if (options.filter && !options.filter(entry.eval.id, spec.id)) continue;
          if (seen.has(spec.id)) {
            const message = `case id "${spec.id}" appears twice in eval "${entry.eval.id}"; give each case a unique id`;
            slots.set(nextSeq++, {
              type: "case",
              entry: index,
              spec,
              record: crashedRecord(entry.eval.id, spec, message),
            });
            continue;
          }
          seen.add(spec.id);
          while (nextSeq - flushSeq >= window) {
            await new Promise<void>((resolve) => {
              producer.wake = resolve;
            });
          }
          const slot: Slot = { type: "case", entry: index, spec };
          const seq = nextSeq++;
          slots.set(seq, slot);
          yield { seq, slot };
        }
      } catch (error) {
        // A broken case source is one errored case; the other evals still run.
        const spec: CaseSpec = { id: "(cases)", index: -1 };
        const slot: Slot = {
          type: "case",
          entry: index,
          spec,
          record: crashedRecord(
            entry.eval.id,
            spec,
            `reading the cases of eval "${entry.eval.id}" failed: ${errorMessage(error)}`,
          ),
        };
        slots.set(nextSeq++, slot);
      }
      slots.set(nextSeq++, { type: "eval-end", entry: index });
      flush();
    }
  }

  // A last-resort limit on a whole attempt (target, adapter, scorers): a promise that never
  // settles must become an errored case, not a silent exit with nothing reported.
  const caseTimeoutMs =
    options.caseTimeoutMs ??
    (options.timeoutMs !== undefined ? options.timeoutMs + 1000 : DEFAULT_CASE_TIMEOUT_MS);

  // One watchdog for the run rather than a timer per attempt (cheaper at 100,000 cases); it
  // also keeps the process alive while an attempt is pending, so a hang is reported, not lost.
  const deadlines = new Map<Slot, { at: number; reject: (error: Error) => void }>();
  const watchdog = setInterval(
    () => {
      const now = performance.now();
      for (const [slot, deadline] of deadlines) {
        if (now < deadline.at) continue;
        deadlines.delete(slot);
        deadline.reject(
          new NiceevalError(
            "TIMEOUT",
            `the attempt timed out after ${caseTimeoutMs} ms; raise --timeout or the eval's timeoutMs, or make it faster`,
          ),
        );
      }
    },
    Math.max(5, Math.min(1000, caseTimeoutMs / 4)),
  );
  const guarded = <T>(slot: Slot, work: () => Promise<T>): Promise<T> => {
    const limit = new Promise<never>((_, reject) => {
      deadlines.set(slot, { at: performance.now() + caseTimeoutMs, reject });
    });
    return Promise.race([work(), limit]).finally(() => deadlines.delete(slot));
  };

  const baseContext: AttemptContext = {
    runId,
    signal,
    ...(options.keepOutput ? { keepOutput: true } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  };

  const runOne = async (slot: Extract<Slot, { type: "case" }>) => {
    const entry = entries[slot.entry]!;
    const runnable = entry.eval;
    const cap = runnable.concurrency;
    if (cap !== undefined && cap > 0) {
      while (perEvalRunning[slot.entry]! >= cap) {
        await new Promise<void>((resolve) => perEvalWaiters[slot.entry]!.push(resolve));
      }
    }
    perEvalRunning[slot.entry]!++;
    if (emitting)
      emit({
        ...base(slot.entry),
        kind: "eval.case.started",
        caseId: slot.spec.id,
        index: slot.spec.index,
      });
    const onJudgment = emitting
      ? (judgment: Judgment) =>
          emit({ ...base(slot.entry), kind: "eval.case.scored", caseId: slot.spec.id, judgment })
      : undefined;
    let record: AttemptRecord;
    try {
      const context: AttemptContext = onJudgment ? { ...baseContext, onJudgment } : baseContext;
      const { result, usage } = await withJudgeLedger(() =>
        guarded(slot, () => runnable.runCase(slot.spec, context)),
      );
      record = result;
      // Judge calls the eval did not attribute to a judgment still belong to the attempt.
      if (usage.calls > record.usage.judge.calls) record.usage.judge = usage;
    } catch (error) {
      record = crashedRecord(
        runnable.id,
        slot.spec,
        `eval "${runnable.id}" crashed on case "${slot.spec.id}": ${errorMessage(error)}`,
      );
    }
    perEvalRunning[slot.entry]!--;
    perEvalWaiters[slot.entry]!.shift()?.();
    if (emitting)
      emit({ ...base(slot.entry), kind: "eval.case.finished", caseId: slot.spec.id, record });
    slot.record = record;
    done++;
    for (const r of reporters) r.onProgress?.(done);
    flush();
  };

  const source = schedule();
  const worker = async () => {
    for (;;) {
      const next = await source.next();
      if (next.done) return;
      const slot = next.value.slot;
      if (slot.type === "case") await runOne(slot);
    }
  };
  // One generator feeds every worker; calls to next() are queued by the generator itself.
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    clearInterval(watchdog);
  }
  flush();

  // Under a filter, an eval none of whose cases was selected did not run.
  if (options.filter) totals.evals = summaries.filter((s) => s.cases > 0).length;
  const summary: RunSummary = {
    runId,
    startedAt: startedAt.toISOString(),
    elapsedMs: performance.now() - started,
    evals: summaries,
    totals,
    judge: runJudge,
    loadErrors: [],
    ok: totals.failed === 0 && totals.errored === 0 && !signal.aborted,
    cancelled: signal.aborted,
  };
  return summary;
}

function crashedRecord(evalId: string, spec: CaseSpec, message: string): AttemptRecord {
  return erroredRecord({
    evalId,
    caseId: spec.id,
    message,
    where: `eval "${evalId}", case "${spec.id}"`,
  });
}
