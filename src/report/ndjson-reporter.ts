import { closeSync, openSync } from "node:fs";
import { realIsoNow } from "../clock.js";
import { safeStringify, wellFormedJson } from "../json-safe.js";
import { withVerdictReason } from "./failures.js";
import { evalSummaryWithFigures, summaryWithFigures } from "./figures.js";
import type { ComparedReportOptions } from "./json-reporter.js";
import { LineWriter } from "./output.js";
import type { Reporter } from "./reporter.js";

/** Format id carried by the first line of an NDJSON report. */
export const NDJSON_FORMAT = "niceeval/ndjson/v1" as const;

/**
 * One JSON object a line, written as each thing happens: `run.started`, `eval.started`,
 * `record` (one per attempt, in case order), `eval.finished` (the summary with its figures),
 * `comparison` (with a baseline: the comparison `niceeval compare --json` gives), `run.finished`. Every line is written with a synchronous write of its own, so a process killed
 * mid-run leaves only whole lines; a value that cannot be serialised becomes a marker string.
 * U+2028, U+2029 and U+0085 in strings are written as escapes, so a reader that ends lines there
 * too (Python's `splitlines()`) still reads one event a line; a lone surrogate is written as U+FFFD.
 * @param target a file path, or "-" for standard output
 * @example
 * runEvals(entries, { reporters: [ndjsonReporter("run.ndjson")] })
 */
export function ndjsonReporter(target: string, options: ComparedReportOptions = {}): Reporter {
  let fd: number | undefined;
  let out: LineWriter | undefined;
  const emit = (type: string, fields: Record<string, unknown>) =>
    // The real time: an attempt may fake the global clock while others are reported.
    out?.line(oneJsonLine(wellFormedJson(safeStringify({ type, at: realIsoNow(), ...fields }))));
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
      emit("eval.finished", { summary: evalSummaryWithFigures(summary) });
    },
    onRunFinished(summary) {
      if (!out) return;
      const comparison = options.comparison?.();
      if (comparison) emit("comparison", { comparison });
      emit("run.finished", { summary: summaryWithFigures(summary) });
      out = undefined;
      if (fd !== undefined && fd !== 1) closeSync(fd);
    },
  };
}

// Line ends JSON leaves raw in strings, at which some readers of lines still split (Python's
// str.splitlines(), JavaScript before ES2019): written as escapes, the same JSON.
const LINE_ENDS = /[\u0085\u2028\u2029]/g;

/** JSON text on one line for every reader of lines: U+0085, U+2028 and U+2029 escaped. */
function oneJsonLine(json: string): string {
  return json.replace(LINE_ENDS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
