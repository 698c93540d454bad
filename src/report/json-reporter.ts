import { closeSync, openSync } from "node:fs";
import type { AttemptRecord } from "../eval/record.js";
import type { EvalSummary } from "../runner/events.js";
import type { RunSummary } from "../runner/run.js";
import { LineWriter } from "./output.js";
import type { Reporter } from "./reporter.js";

/**
 * Writes the run as one JSON document `{ records: [...], summary }`, streamed record by record
 * so that a run of any size writes in bounded memory.
 */
export function jsonReporter(file: string): Reporter {
  let fd: number | undefined;
  let out: LineWriter | undefined;
  let first = true;
  return {
    onRunStart(info) {
      fd = openSync(file, "w");
      out = new LineWriter(fd);
      out.write(`{"format":"niceeval/run/v1","runId":${JSON.stringify(info.runId)},"records":[`);
    },
    onCaseFinished(record: AttemptRecord) {
      out?.write(`${first ? "\n" : ",\n"}${JSON.stringify(record)}`);
      first = false;
    },
    onEvalFinished(_summary: EvalSummary) {},
    onRunFinished(summary: RunSummary) {
      if (!out || fd === undefined) return;
      out.write(`\n],"summary":${JSON.stringify(summary)}}\n`);
      out.flush();
      closeSync(fd);
    },
  };
}
