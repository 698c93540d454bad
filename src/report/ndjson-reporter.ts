import { closeSync, openSync } from "node:fs";
import { realIsoNow } from "../clock.js";
import { safeStringify } from "../json-safe.js";
import { withVerdictReason } from "./failures.js";
import { evalSummaryWithFigures, summaryWithFigures } from "./figures.js";
import { LineWriter } from "./output.js";
import type { Reporter } from "./reporter.js";

/** Format id carried by the first line of an NDJSON report. */
export const NDJSON_FORMAT = "niceeval/ndjson/v1" as const;

/**
 * One JSON object a line, written as each thing happens: `run.started`, `eval.started`,
 * `record` (one per attempt, in case order), `eval.finished` (the summary with its figures),
 * `run.finished`. Every line is written with a synchronous write of its own, so a process killed
 * mid-run leaves only whole lines; a value that cannot be serialised becomes a marker string.
 * @param target a file path, or "-" for standard output
 * @example
 * runEvals(entries, { reporters: [ndjsonReporter("run.ndjson")] })
 */
export function ndjsonReporter(target: string): Reporter {
  let fd: number | undefined;
  let out: LineWriter | undefined;
  const emit = (type: string, fields: Record<string, unknown>) =>
    // The real time: an attempt may fake the global clock while others are reported.
    out?.line(safeStringify({ type, at: realIsoNow(), ...fields }));
  return {
    onRunStart(info) {
      if (out) return;
      fd = target === "-" ? 1 : openSync(target, "w");
      // A limit of 0 makes every line its own write.
      out = new LineWriter(fd, 0);
      emit("run.started", { format: NDJSON_FORMAT, ...info });
    },
    onEvalStart(info) {
      emit("eval.started", { ...info });
    },
    onCaseFinished(record) {
      emit("record", { record: withVerdictReason(record) });
    },
    onEvalFinished(summary) {
      const { figures, ...written } = evalSummaryWithFigures(summary);
      emit("eval.finished", { summary: written, figures });
    },
    onRunFinished(summary) {
      if (!out) return;
      emit("run.finished", { summary: summaryWithFigures(summary) });
      out = undefined;
      if (fd !== undefined && fd !== 1) closeSync(fd);
    },
  };
}
