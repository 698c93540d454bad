// Runs a suite whose fourth case never settles, reporting as NDJSON to argv[2] ("-" for stdout),
// so that a test can SIGTERM the process mid-run and read what it left.
import { defineSuite } from "../../eval/suite.js";
import { runEvals } from "../../runner/run.js";
import { ndjsonReporter } from "../ndjson-reporter.js";
import { ran } from "./runs.js";

const suite = defineSuite<number, number>({
  id: "hangs",
  cases: Array.from({ length: 6 }, (_, i) => ({ id: `c${i}`, input: i })),
  target: (i) => (i === 3 ? new Promise<number>(() => {}) : i),
  scorers: [ran],
});
await runEvals([{ eval: suite }], {
  concurrency: 1,
  reporters: [
    ndjsonReporter(process.argv[2] ?? "-"),
    { onCaseFinished: (r) => r.caseId === "c2" && process.stderr.write("ready\n") },
  ],
});
