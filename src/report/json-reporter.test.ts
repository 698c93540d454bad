import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CIRCULAR_MARKER } from "../json-safe.js";
import { jsonReporter } from "./json-reporter.js";
import {
  flakySuite,
  mixedSuite,
  record,
  run,
  runSummary,
  tempDir,
  ungatedUsageEval,
} from "./test-support/runs.js";

describe("jsonReporter", () => {
  it("gives a record that is not passed its reason: the gate without evidence of an errored attempt", async () => {
    const file = join(tempDir(), "run.json");
    await run([{ eval: ungatedUsageEval() }, { eval: mixedSuite() }], [jsonReporter(file)]);
    const { records } = JSON.parse(readFileSync(file, "utf8"));
    const [why, ok] = records;
    expect(Object.keys(why).slice(0, 4)).toEqual(["evalId", "caseId", "verdict", "reason"]);
    expect(why).toMatchObject({
      verdict: "errored",
      reason:
        "Usage limit (gate): unavailable — usage-unreported: the adapter never reported totalTokens (ctx.reportUsage)",
    });
    expect(why.error).toBeUndefined();
    expect(ok).toMatchObject({ caseId: "ok", verdict: "passed" });
    expect(ok.reason).toBeUndefined();
  });

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
    expect(figures.meanScore.interval).toMatchObject({ level: 0.95, method: "t" });
    expect(json.summary.totals.figures.passRate).toMatchObject({
      n: 4,
      interval: { method: "wilson" },
    });
  });

  it("with trials, gives each figure one interval, over cases: the pass rate pass@1's, the mean score the case means'", async () => {
    // 40 cases run 3 times, their trials disagreeing: 120 attempts, 40 cases of evidence.
    const file = join(tempDir(), "run.json");
    await run([{ eval: flakySuite() }], [jsonReporter(file)], { trials: 3 });
    const { summary } = JSON.parse(readFileSync(file, "utf8"));
    const [e] = summary.evals;
    const { trials, figures } = e;
    expect(trials).toMatchObject({ cases: 40, scoredCases: 40, attempts: 120 });
    expect(figures.passRate).toMatchObject({ n: 120, cases: 40 });
    expect(figures.meanScore).toMatchObject({ n: 120, cases: 40 });
    // Pass@1 is the pass rate (every case ran three trials): one figure, one interval.
    const k1 = trials.byK[0];
    expect(k1.k).toBe(1);
    expect(k1.passAtK.value).toBeCloseTo(figures.passRate.rate, 12);
    for (const reducer of [k1.passAtK, k1.passHatK]) {
      expect(reducer.interval.method).toBe(figures.passRate.interval.method);
      expect(reducer.interval.low).toBeCloseTo(figures.passRate.interval.low, 10);
      expect(reducer.interval.high).toBeCloseTo(figures.passRate.interval.high, 10);
    }
    // So is the mean of the case means (every score complete): the t interval of the 40 means.
    expect(trials.score.mean.value).toBeCloseTo(figures.meanScore.mean, 12);
    expect(figures.meanScore.interval.method).toBe("t");
    expect(figures.meanScore.interval.low).toBeCloseTo(trials.score.mean.interval.low, 10);
    expect(figures.meanScore.interval.high).toBeCloseTo(trials.score.mean.interval.high, 10);
    // The run's pass rate is its one eval's.
    expect(summary.totals.figures.passRate).toEqual(figures.passRate);
  });

  it("names the attempts `attempts` beside `cases`, which counts them too, and the cases `trials.cases`", async () => {
    const file = join(tempDir(), "run.json");
    await run([{ eval: flakySuite("flaky", 10) }], [jsonReporter(file)], { trials: 3 });
    const { summary } = JSON.parse(readFileSync(file, "utf8"));
    expect(summary.evals[0]).toMatchObject({ cases: 30, attempts: 30, trials: { cases: 10 } });
    expect(summary.totals).toMatchObject({ cases: 30, attempts: 30 });
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

  it("writes judgment metadata of any kind, marking what JSON cannot hold", () => {
    const file = join(tempDir(), "run.json");
    const reporter = jsonReporter(file);
    const detail: Record<string, unknown> = {
      big: 7n,
      fn: () => 1,
      sym: Symbol.for("k"),
      bytes: new Uint16Array([1, 2]),
      error: new RangeError("too far"),
      map: new Map([["k", new Set([1])]]),
      when: new Date(0),
    };
    detail.self = detail;
    reporter.onRunStart?.({ runId: "r", evals: 1, files: 1, concurrency: 1 });
    const judgment = {
      label: "meta",
      source: "scorer",
      state: "matched",
      gate: true,
      points: 1,
      earned: 1,
      value: 1,
      reason: "ok",
      detail,
    } as const;
    reporter.onCaseFinished?.(record({ judgments: [judgment] }));
    reporter.onRunFinished?.(runSummary());
    const json = JSON.parse(readFileSync(file, "utf8"));
    expect(json.records[0].judgments[0].detail).toMatchObject({
      big: "[unserialisable: bigint 7]",
      fn: "[unserialisable: function fn]",
      sym: "[unserialisable: Symbol(k)]",
      bytes: [1, 2],
      error: { name: "RangeError", message: "too far" },
      map: { k: [1] },
      when: "1970-01-01T00:00:00.000Z",
      self: CIRCULAR_MARKER,
    });
  });
});
