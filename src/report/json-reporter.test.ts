import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { jsonReporter } from "./json-reporter.js";
import { CIRCULAR_MARKER } from "./json-safe.js";
import { mixedSuite, record, run, runSummary, tempDir } from "./test-support/runs.js";

describe("jsonReporter", () => {
  it("gives every pass rate and mean score its n and 95% interval, as the console does", async () => {
    const file = join(tempDir(), "run.json");
    await run([{ eval: mixedSuite() }], [jsonReporter(file)]);
    const json = JSON.parse(readFileSync(file, "utf8"));
    expect(json.format).toBe("niceeval/run/v1");
    expect(json.records).toHaveLength(4);
    const figures = json.summary.evals[0].figures;
    expect(figures.passRate).toMatchObject({ rate: 0.5, passed: 2, n: 4 });
    expect(figures.passRate.interval).toMatchObject({ level: 0.95, method: "wilson" });
    expect(figures.passRate.interval.low).toBeCloseTo(0.15, 2);
    expect(figures.meanScore).toMatchObject({ n: 3, partial: 0, lowerBound: false });
    expect(figures.meanScore.interval).toMatchObject({ level: 0.95, method: "clt" });
    expect(json.summary.totals.figures.passRate).toMatchObject({
      n: 4,
      interval: { method: "wilson" },
    });
  });

  it("writes a record whose output cannot be serialised with a marker", () => {
    const file = join(tempDir(), "run.json");
    const reporter = jsonReporter(file);
    const output: Record<string, unknown> = {};
    output.self = output;
    reporter.onRunStart?.({ runId: "r", evals: 1, files: 1, concurrency: 1 });
    reporter.onCaseFinished?.(record({ output }));
    reporter.onRunFinished?.(runSummary());
    const json = JSON.parse(readFileSync(file, "utf8"));
    expect(json.records[0].output).toEqual({ self: CIRCULAR_MARKER });
  });
});
