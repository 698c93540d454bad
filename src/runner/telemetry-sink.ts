import { EVAL_EVENT_SCHEMA, type EvalEvent } from "./events.js";
import type { RunSink } from "./sink.js";
import type { Telemetry } from "./telemetry.js";

/** Turns a run's hooks into telemetry events, in real time; a failing telemetry never stops the run. */
export function telemetrySink(
  runId: string,
  telemetries: readonly Telemetry<EvalEvent>[],
): RunSink {
  const emit = (event: EvalEvent) => {
    for (const telemetry of telemetries) {
      try {
        const pending = telemetry.emit(event);
        if (pending && typeof (pending as Promise<void>).catch === "function") {
          (pending as Promise<void>).catch(() => {});
        }
      } catch {
        // A broken telemetry sink must not take the run down.
      }
    }
  };
  const base = (evalId: string) => ({
    schema: EVAL_EVENT_SCHEMA,
    runId,
    evalId,
    timestamp: new Date().toISOString(),
  });
  return {
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
  };
}
