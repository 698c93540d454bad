import { closeSync, openSync } from "node:fs";
import type { Comparison } from "../compare/types.js";
import { AuthoringError } from "../errors.js";
import type { AttemptRecord } from "../eval/record.js";
import { safeStringify, wellFormedJson } from "../json-safe.js";
import { valueKind } from "../required.js";
import type { RunSummary } from "../runner/run.js";
import { withVerdictReason } from "./failures.js";
import { summaryWithFigures } from "./figures.js";
import { LineWriter } from "./output.js";
import type { Reporter } from "./reporter.js";

/** Options of the JSON and NDJSON reports. */
export interface ComparedReportOptions {
  /**
   * The comparison with the run's baseline (`run --baseline`), asked for as the run finishes: the
   * report then carries it as `comparison`, as `niceeval compare --json` gives it.
   */
  comparison?: (() => Comparison | undefined) | undefined;
}

/**
 * Writes the run as one JSON document `{ format, runId, records: [...], summary }`, streamed
 * record by record so that a run of any size writes in bounded memory. Each eval summary carries
 * `figures`: the pass rate with n and its 95% Wilson interval, and the mean score with n, its 95%
 * t interval and whether it is a lower bound, both over cases with trials (see `figures.ts`); the
 * totals carry the run's pass rate only (each eval scores something of its own); and `attempts`
 * beside `cases`, which counts attempts too. A failed, errored
 * or skipped record carries `reason`, why (`withVerdictReason`).
 */
export function jsonReporter(file: string, options: ComparedReportOptions = {}): Reporter {
  if (typeof file !== "string" || file === "") {
    throw new AuthoringError(
      `jsonReporter(file): pass the path of the JSON file to write, such as "report.json", got ${valueKind(file)}`,
    );
  }
  let fd: number | undefined;
  let out: LineWriter | undefined;
  let first = true;
  return {
    onRunStart(info) {
      fd = openSync(file, "w");
      out = new LineWriter(fd);
      first = true;
      out.write(`{"format":"niceeval/run/v1","runId":${JSON.stringify(info.runId)},"records":[`);
    },
    onCaseFinished(record: AttemptRecord) {
      out?.write(
        `${first ? "\n" : ",\n"}${wellFormedJson(safeStringify(withVerdictReason(record)))}`,
      );
      first = false;
    },
    onRunFinished(summary: RunSummary) {
      if (!out || fd === undefined) return;
      const compared = options.comparison?.();
      const comparison = compared ? `,"comparison":${wellFormedJson(safeStringify(compared))}` : "";
      out.write(
        `\n],"summary":${wellFormedJson(safeStringify(summaryWithFigures(summary)))}${comparison}}\n`,
      );
      out.flush();
      closeSync(fd);
      out = undefined;
      fd = undefined;
    },
  };
}
