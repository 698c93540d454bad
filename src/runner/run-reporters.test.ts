import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { defineSuite } from "../eval/suite.js";
import { consoleReporter } from "../report/console-reporter.js";
import { jsonReporter } from "../report/json-reporter.js";
import { createScorer } from "../scorers/create-scorer.js";
import { runEvals } from "./run.js";
import { runEval } from "./run-eval.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const suite = defineSuite<number, number>({
  id: "api-reporters",
  cases: [
    { id: "one", input: 1, expected: 1 },
    { id: "two", input: 2, expected: 3 },
  ],
  target: (n) => n,
  scorers: [
    createScorer<number, number>({
      name: "equal",
      score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
    }),
  ],
});

describe("runEvals with reporters (the API, not the CLI)", () => {
  it("finishes every reporter: the console summary and the JSON report are written", async () => {
    const dir = mkdtempSync(join(tmpdir(), "niceeval-api-"));
    dirs.push(dir);
    const consoleFile = join(dir, "console.txt");
    const jsonFile = join(dir, "report.json");
    const fd = openSync(consoleFile, "w");
    const summary = await runEvals([{ eval: suite }], {
      reporters: [consoleReporter({ fd }), jsonReporter(jsonFile)],
    });
    closeSync(fd);
    expect(summary.totals).toMatchObject({ cases: 2, passed: 1, failed: 1 });
    const text = readFileSync(consoleFile, "utf8");
    expect(text).toMatch(/2 cases/);
    // The entry names no file: the header counts none rather than "1 file".
    expect(text).toMatch(/^niceeval run · 1 eval · concurrency \d+$/m);
    expect(text).toMatch(/FAIL/);
    const report = JSON.parse(readFileSync(jsonFile, "utf8")) as {
      summary: {
        evals: { figures: { passRate: { n: number; interval: { low: number; high: number } } } }[];
      };
    };
    const passRate = report.summary.evals[0]!.figures.passRate;
    expect(passRate.n).toBe(2);
    // Wilson 95% interval of 1/2.
    expect(passRate.interval.low).toBeCloseTo(0.0945, 3);
    expect(passRate.interval.high).toBeCloseTo(0.9055, 3);
  });
});

describe("runEval with a telemetry that fails", () => {
  it("keeps the failure in the report's reportErrors, as runEvals does in its summary", async () => {
    const said: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((text: string) => said.push(String(text)) > 0) as typeof write;
    try {
      const report = await runEval(suite, {
        telemetry: {
          emit() {
            throw new Error("collector down");
          },
        },
      });
      expect(report.passedCount).toBe(1);
      expect(report.reportErrors).toEqual([expect.stringContaining("collector down")]);
      const clean = await runEval(suite);
      expect(clean).not.toHaveProperty("reportErrors");
    } finally {
      process.stderr.write = write;
    }
  });
});
