import { clearTimeout, realIsoNow, setTimeout } from "../clock.js";
import { errorMessage } from "../errors.js";
import { EVAL_EVENT_SCHEMA, type EvalEvent } from "./events.js";
import { type RunSink, SinkReport } from "./sink.js";
import type { Telemetry } from "./telemetry.js";

/** How long a finished run waits for telemetry deliveries still under way, ms. */
const DELIVERY_WAIT_MS = 10_000;

/**
 * Turns a run's hooks into telemetry events, in real time. A failing telemetry never stops the
 * run: what it said is kept (once per telemetry) and reported when the run finishes, which also
 * waits (up to 10 s) for the events an async `emit` is still delivering, so `await runEval(...)`
 * returns with every event delivered.
 */
export function telemetrySink(
  runId: string,
  telemetries: readonly Telemetry<EvalEvent>[],
  deliveryWaitMs = DELIVERY_WAIT_MS,
): RunSink {
  const pending = new Set<Promise<void>>();
  const failures = new Map<number, string>();
  // Named as the option holds them: the one telemetry, or its place in the list.
  const named = (index: number) =>
    telemetries.length === 1 ? "the telemetry" : `telemetry[${index}]`;
  const fail = (index: number, event: EvalEvent, error: unknown) => {
    if (!failures.has(index))
      failures.set(
        index,
        `${named(index)} first failed on an ${event.kind} event (${errorMessage(error)}); later failures of it are not shown`,
      );
  };
  const emit = (event: EvalEvent) => {
    for (let index = 0; index < telemetries.length; index++) {
      try {
        const delivery = telemetries[index]!.emit(event);
        if (delivery && typeof (delivery as Promise<void>).then === "function") {
          const settled = Promise.resolve(delivery).then(
            () => {
              pending.delete(settled);
            },
            (error: unknown) => {
              pending.delete(settled);
              fail(index, event, error);
            },
          );
          pending.add(settled);
        }
      } catch (error) {
        fail(index, event, error);
      }
    }
  };
  const base = (evalId: string) => ({
    schema: EVAL_EVENT_SCHEMA,
    runId,
    evalId,
    // The real time: an attempt may fake the global clock while others end.
    timestamp: realIsoNow(),
  });
  return {
    label: "telemetry",
    onEvalScheduled: (info) =>
      emit({
        ...base(info.evalId),
        kind: "eval.started",
        style: info.style,
        ...(info.file ? { file: info.file } : {}),
      }),
    onAttemptStarted: (attempt) =>
      emit({
        ...base(attempt.evalId),
        kind: "eval.case.started",
        caseId: attempt.caseId,
        index: attempt.index,
        ...(attempt.trial > 0 ? { trial: attempt.trial } : {}),
      }),
    onJudgment: (attempt, judgment) =>
      emit({
        ...base(attempt.evalId),
        kind: "eval.case.scored",
        caseId: attempt.caseId,
        judgment,
        ...(attempt.trial > 0 ? { trial: attempt.trial } : {}),
      }),
    onAttemptFinished: (record) =>
      emit({
        ...base(record.evalId),
        kind: "eval.case.finished",
        caseId: record.caseId,
        record,
        ...(record.trial ? { trial: record.trial } : {}),
      }),
    onEvalFinished: (summary) => emit({ ...base(summary.evalId), kind: "eval.finished", summary }),
    onRunFinished: async () => {
      // Deliveries get a bounded wait: a collector that never answers must not hold the run.
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<"late">((resolve) => {
        timer = setTimeout(() => resolve("late"), deliveryWaitMs);
      });
      while (pending.size > 0) {
        if ((await Promise.race([Promise.all([...pending]), late])) === "late") {
          failures.set(
            -1,
            `${pending.size === 1 ? "1 telemetry event was" : `${pending.size} telemetry events were`} still not delivered ${deliveryWaitMs / 1000} s after the run ended`,
          );
          break;
        }
      }
      clearTimeout(timer);
      if (failures.size > 0)
        throw new SinkReport(`telemetry: ${[...failures.values()].join("; ")}; the run went on`);
    },
  };
}
