import { describe, expect, it, onTestFinished, vi } from "vitest";
import { defineAdapter } from "../adapter/define-adapter.js";
import type { AttemptRecord } from "../eval/record.js";
import { defineSuite } from "../eval/suite.js";
import { JudgeUnavailableError } from "../judge/unavailable.js";
import { jsonReporter } from "../report/json-reporter.js";
import { createScorer } from "../scorers/create-scorer.js";
import type { EvalEvent } from "./events.js";
import { runEvals } from "./run.js";
import { runEval } from "./run-eval.js";
import { arrayTelemetry } from "./telemetry.js";
import { telemetrySink } from "./telemetry-sink.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// A suite needs a scorer; this one passes whatever the output.
const ran = createScorer({ name: "ran", score: () => ({ score: 1 }) });

const equalsExpected = createScorer<string, string>({
  name: "equals",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});

describe("runEvals", () => {
  it("totals the application's usage per eval and per run, unreported attempts in no sum", async () => {
    const agent = defineAdapter({
      name: "agent",
      create: (ctx) => {
        if (ctx.trial < 2) ctx.reportUsage({ inputTokens: 20, outputTokens: 10, costUsd: 0.25 });
        return {};
      },
    });
    const paid = agent.defineScoreEval({ id: "paid", description: "x", trials: 3, test() {} });
    const quiet = defineSuite({
      id: "quiet",
      cases: [{ id: "a", input: 1 }],
      target: (i) => i,
      scorers: [ran],
    });
    const summary = await runEvals([{ eval: paid }, { eval: quiet }], {});
    const totals = { inputTokens: 40, outputTokens: 20, totalTokens: 60, costUsd: 0.5 };
    expect(summary.app).toEqual({ reported: 2, unreported: 2, ...totals });
    expect(summary.evals.map((e) => e.app)).toEqual([
      { reported: 2, unreported: 1, ...totals },
      { reported: 0, unreported: 1 },
    ]);
  });

  it("hands records to reporters in case order whatever the completion order", async () => {
    const suite = defineSuite<number, string>({
      id: "order",
      cases: Array.from({ length: 40 }, (_, i) => ({ id: `c${i}`, input: i, expected: `v${i}` })),
      target: async (i) => {
        await sleep((i * 7) % 11);
        return `v${i}`;
      },
      scorers: [equalsExpected],
    });
    const seen: string[] = [];
    const summary = await runEvals([{ eval: suite }], {
      concurrency: 8,
      reporters: [{ onCaseFinished: (r) => seen.push(r.caseId) }],
    });
    expect(seen).toEqual(Array.from({ length: 40 }, (_, i) => `c${i}`));
    expect(summary.totals).toMatchObject({ cases: 40, passed: 40, failed: 0 });
    expect(summary.evals[0]).toMatchObject({ evalId: "order", meanScore: 1, scoredCases: 40 });
  });

  it("respects a suite's own concurrency cap under a larger run concurrency", async () => {
    let running = 0;
    let peak = 0;
    const suite = defineSuite<number, number>({
      id: "capped",
      concurrency: 2,
      cases: Array.from({ length: 12 }, (_, i) => ({ id: `c${i}`, input: i })),
      target: async (i) => {
        running++;
        peak = Math.max(peak, running);
        await sleep(3);
        running--;
        return i;
      },
      scorers: [ran],
    });
    await runEvals([{ eval: suite }], { concurrency: 10 });
    expect(peak).toBe(2);
  });

  it("streams cases: the producer stays within the reorder window behind a slow case", async () => {
    let produced = 0;
    const suite = defineSuite<number, number>({
      id: "stream",
      cases: function* () {
        for (let i = 0; i < 5000; i++) {
          produced++;
          yield { id: `c${i}`, input: i };
        }
      },
      target: async (i) => {
        if (i === 0) await sleep(50);
        return i;
      },
      scorers: [ran],
    });
    let producedWhenFirstFinished = -1;
    await runEvals([{ eval: suite }], {
      concurrency: 2,
      reporters: [
        {
          onCaseFinished: (r) => {
            if (r.caseId === "c0") producedWhenFirstFinished = produced;
          },
        },
      ],
    });
    expect(produced).toBe(5000);
    expect(producedWhenFirstFinished).toBeGreaterThan(0);
    expect(producedWhenFirstFinished).toBeLessThanOrEqual(256 + 4);
  });

  it("keeps going when a target or a scorer breaks, and says which", async () => {
    const throwing = createScorer<string, string>({
      name: "boom",
      score: () => {
        throw new Error("kaput");
      },
    });
    const nan = createScorer<string, string>({ name: "nan", score: () => ({ score: Number.NaN }) });
    const nothing = createScorer<string, string>({
      name: "nothing",
      score: () => ({ score: null }),
    });
    const suite = defineSuite<string, string>({
      id: "broken",
      cases: [
        { id: "target-throws", input: "x", expected: "x" },
        { id: "fine", input: "y", expected: "y" },
      ],
      target: async (input) => {
        if (input === "x") throw new Error("target exploded");
        return input;
      },
      scorers: [equalsExpected, throwing, nan, nothing],
    });
    const records: AttemptRecord[] = [];
    const summary = await runEvals([{ eval: suite }], { onRecord: (r) => records.push(r) });
    expect(summary.totals).toMatchObject({ cases: 2, errored: 2 });
    const [first, second] = records;
    expect(first?.verdict).toBe("errored");
    expect(first?.error?.message).toBe("target exploded");
    expect(first?.error?.where).toContain('case "target-throws"');
    expect(second?.judgments.map((j) => [j.label, j.state])).toEqual([
      ["equals", "matched"],
      ["boom", "errored"],
      ["nan", "errored"],
      ["nothing", "mismatched"],
    ]);
    expect(second?.judgments[1]?.reason).toBe('scorer "boom" threw: kaput');
    expect(second?.judgments[2]?.reason).toContain(
      'scorer "nan" returned a non-finite score (NaN)',
    );
    expect(second?.judgments[3]).toMatchObject({
      earned: 0,
      value: null,
      reason: "no score (null counts as 0)",
    });
    // The errored scorer keeps its point in max: the score is a lower bound, not a fabricated zero.
    expect(second?.score).toMatchObject({ state: "partial", earned: 1, max: 4 });
  });

  it("turns a broken case source into one errored case and runs the next eval", async () => {
    const broken = defineSuite<number, number>({
      id: "broken-source",
      cases: function* () {
        yield { id: "ok", input: 1 };
        throw new Error("dataset file is corrupt");
      },
      target: (i) => i,
      scorers: [ran],
    });
    const fine = defineSuite<number, number>({
      id: "fine",
      cases: [{ id: "a", input: 1 }],
      target: (i) => i,
      scorers: [ran],
    });
    const records: AttemptRecord[] = [];
    const summary = await runEvals([{ eval: broken }, { eval: fine }], {
      onRecord: (r) => records.push(r),
    });
    expect(records.map((r) => `${r.evalId}/${r.caseId}:${r.verdict}`)).toEqual([
      "broken-source/ok:passed",
      "broken-source/(cases):errored",
      "fine/a:passed",
    ]);
    expect(records[1]?.error?.message).toContain("dataset file is corrupt");
    expect(summary.ok).toBe(false);
  });

  it.each([
    [
      "code",
      undefined,
      "the target timed out after 20 ms; raise the timeoutMs of the run (runEval, runEvals) or of the eval (defineSuite, defineScoreEval), or make it faster",
    ],
    [
      "the CLI",
      "cli" as const,
      "the target timed out after 20 ms; raise --timeout or the eval's timeoutMs, or make it faster",
    ],
  ])(
    "times out a slow target with a message naming the case and the options of %s",
    async (_, origin, message) => {
      const suite = defineSuite<number, number>({
        id: "slow",
        cases: [{ id: "sleepy", input: 1 }],
        target: () => sleep(200).then(() => 1),
        scorers: [ran],
      });
      const records: AttemptRecord[] = [];
      await runEvals([{ eval: suite }], {
        timeoutMs: 20,
        ...(origin ? { origin } : {}),
        onRecord: (r) => records.push(r),
      });
      expect(records[0]?.verdict).toBe("errored");
      expect(records[0]?.error?.message).toBe(message);
      expect(records[0]?.error?.where).toBe('target of case "sleepy" in eval "slow"');
    },
  );
});

describe("guards", () => {
  it("turns a target that never settles into an errored case instead of a silent exit", async () => {
    const suite = defineSuite<number, number>({
      id: "stuck",
      cases: [
        { id: "forever", input: 1 },
        { id: "fine", input: 2 },
      ],
      target: (i) => (i === 1 ? new Promise<number>(() => {}) : i),
      scorers: [ran],
    });
    const records: AttemptRecord[] = [];
    await runEvals([{ eval: suite }], { caseTimeoutMs: 30, onRecord: (r) => records.push(r) });
    expect(records.map((r) => r.verdict)).toEqual(["errored", "passed"]);
    // On a loaded machine the sweep itself can come late enough to read as the thread held
    // (the message then also says to make the attempt yield): both name the limit and the options.
    const message = records[0]?.error?.message;
    expect(message).toContain("the attempt did not settle within the last-resort limit of 30 ms");
    expect(message).toContain(
      "the timeoutMs of the run (runEval, runEvals) or of the eval (defineSuite, defineScoreEval)",
    );
  });

  it("reports a repeated case id as an errored case and runs the first one", async () => {
    const suite = defineSuite<number, number>({
      id: "dups",
      cases: [
        { id: "a", input: 1 },
        { id: "a", input: 2 },
      ],
      target: (i) => i,
      scorers: [ran],
    });
    const records: AttemptRecord[] = [];
    await runEvals([{ eval: suite }], { onRecord: (r) => records.push(r) });
    expect(records.map((r) => r.verdict)).toEqual(["passed", "errored"]);
    expect(records[1]?.error?.message).toBe(
      'case id "a" appears twice in eval "dups"; give each case a unique id',
    );
  });

  it("still finishes every eval when cancelled, and says it was cancelled", async () => {
    const controller = new AbortController();
    const telemetry = arrayTelemetry<EvalEvent>();
    const report = await runEval(
      {
        id: "cancel",
        cases: Array.from({ length: 6 }, (_, i) => ({ id: `c${i}`, input: i })),
        scorers: [ran] as never,
      },
      {
        target: async (i: number) => {
          if (i === 1) controller.abort();
          await sleep(5);
          return i;
        },
        telemetry,
        concurrency: 1,
        signal: controller.signal,
      },
    );
    expect(report.cancelled).toBe(true);
    expect(report.total).toBe(2);
    expect(telemetry.events.at(-1)?.kind).toBe("eval.finished");
  });
});

describe("telemetry", () => {
  const suite = defineSuite({
    id: "tel",
    cases: [
      { id: "a", input: 1 },
      { id: "b", input: 2 },
    ],
    target: (i: number) => i,
    scorers: [ran] as never,
  });

  it("runEval resolves once an async emit has delivered every event", async () => {
    const delivered: string[] = [];
    await runEval(suite, {
      telemetry: {
        emit: async (event: EvalEvent) => {
          await sleep(30);
          delivered.push(event.kind);
        },
      },
    });
    expect(delivered).toHaveLength(8);
    expect(delivered.at(-1)).toBe("eval.finished");
  });

  it("reports what a failing telemetry said, once, and the run and the other telemetry go on", async () => {
    const written: string[] = [];
    const write = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    onTestFinished(() => write.mockRestore());
    const other = arrayTelemetry<EvalEvent>();
    let calls = 0;
    const summary = await runEvals([{ eval: suite }], {
      telemetry: [
        {
          emit: (event: EvalEvent) => {
            calls++;
            if (event.kind === "eval.case.started") throw new Error("collector down");
          },
        },
        { emit: async () => Promise.reject(new Error("rejected")) },
        other,
      ],
    });
    expect(summary.ok).toBe(true);
    expect(calls).toBe(8);
    expect(other.events).toHaveLength(8);
    const said =
      "telemetry: telemetry[0] first failed on an eval.case.started event (collector down); later failures of it are not shown; telemetry[1] first failed on an eval.started event (rejected); later failures of it are not shown; the run went on";
    expect(summary.reportErrors).toEqual([said]);
    expect(written.join("")).toContain(`niceeval: ${said}\n`);
  });
});

describe("reporters given to runEvals", () => {
  it("names a failing reporter by its place in options.reporters, and the others still report", async () => {
    const written: string[] = [];
    const write = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    onTestFinished(() => write.mockRestore());
    const finished: string[] = [];
    const quiet = defineSuite({
      id: "quiet",
      cases: [{ id: "a", input: 1 }],
      target: (i) => i,
      scorers: [ran],
    });
    const summary = await runEvals([{ eval: quiet }], {
      reporters: [
        { onRunFinished: () => void finished.push("first") },
        {
          onRunStart() {
            throw new Error("disk full");
          },
        },
        { onRunFinished: () => void finished.push("third") },
      ],
    });
    expect(finished).toEqual(["first", "third"]);
    expect(summary.reportErrors).toEqual(["reporters[1] failed in onRunStart: disk full"]);
    expect(written.join("")).toContain(
      "niceeval: reporters[1] failed in onRunStart (later failures of it are not shown): disk full\n",
    );
  });

  it("refuses a json reporter given something other than a file path, naming it", () => {
    expect(() => jsonReporter({ path: "out.json" } as never)).toThrow(
      'jsonReporter(file): pass the path of the JSON file to write, such as "report.json", got an object',
    );
    expect(() => jsonReporter("")).toThrow(
      'jsonReporter(file): pass the path of the JSON file to write, such as "report.json", got an empty string',
    );
  });
});

describe("telemetry that never delivers", () => {
  it("holds the end of the run for a bounded time, then says how many events were not delivered", async () => {
    const sink = telemetrySink(
      "r",
      [
        {
          emit: (event: EvalEvent) =>
            event.kind === "eval.finished" ? new Promise(() => {}) : undefined,
        },
      ],
      50,
    );
    sink.onEvalFinished?.({ evalId: "e" } as never);
    await expect(sink.onRunFinished?.({} as never)).rejects.toThrow(
      "1 telemetry event was still not delivered 0.05 s after the run ended",
    );
  });
});

describe("authoring errors at definition time", () => {
  it("names what is wrong with a suite or a scorer", () => {
    const base = { id: "s", cases: [], target: (i: string) => i, scorers: [equalsExpected] };
    expect(() => defineSuite({ ...base, target: undefined as never })).toThrow(
      'defineSuite("s"): `target` must be a function',
    );
    expect(() => defineSuite({ ...base, scorers: [{} as never] })).toThrow(
      'defineSuite("s"): scorers[0] is not a scorer',
    );
    expect(() => createScorer({ name: "", score: () => ({ score: 1 }) })).toThrow(
      "createScorer: `name` must be a non-empty string",
    );
    expect(() => createScorer({ name: "x", score: undefined as never })).toThrow(
      'createScorer("x"): `score` must be a function',
    );
  });

  it("keeps a createScorer score outside 0..1 within its one point", async () => {
    const big = createScorer<string, string>({ name: "big", score: () => ({ score: 5 }) });
    const negative = createScorer<string, string>({
      name: "negative",
      score: () => ({ score: -3 }),
    });
    const records: AttemptRecord[] = [];
    const suite = defineSuite<string, string>({
      id: "range",
      cases: [{ id: "a", input: "a" }],
      target: (i) => i,
      scorers: [big, negative],
    });
    await runEvals([{ eval: suite }], { onRecord: (r) => records.push(r) });
    expect(records[0]?.judgments.map((j) => [j.earned, j.value, j.state])).toEqual([
      [1, 5, "matched"],
      [0, -3, "mismatched"],
    ]);
    expect(records[0]?.judgments[0]?.reason).toBe("5 >= threshold 0.5 (outside 0..1: earns 1)");
    expect(records[0]?.score).toMatchObject({ earned: 1, max: 2 });
  });
});

describe("suite gates", () => {
  it("lets non-gating scorers earn points without deciding pass/fail", async () => {
    const low = createScorer<string, string>({ name: "low", score: () => ({ score: 0.2 }) });
    const suite = defineSuite<string, string>({
      id: "gated",
      cases: [{ id: "a", input: "a", expected: "a" }],
      target: (input) => input,
      scorers: [equalsExpected, low],
      gates: ["equals"],
    });
    const records: AttemptRecord[] = [];
    await runEvals([{ eval: suite }], { onRecord: (r) => records.push(r) });
    expect(records[0]?.verdict).toBe("passed");
    expect(records[0]?.judgments.map((j) => [j.label, j.gate, j.state])).toEqual([
      ["equals", true, "matched"],
      ["low", false, "mismatched"],
    ]);
    expect(records[0]?.score).toMatchObject({ earned: 1.2, max: 2 });
  });

  it("rejects a gate that names no scorer, at definition time", () => {
    expect(() =>
      defineSuite<string, string>({
        id: "typo",
        cases: [],
        target: (input) => input,
        scorers: [equalsExpected],
        gates: ["equal"],
      }),
    ).toThrow('defineSuite("typo"): gates names "equal", which is not one of its scorers (equals)');
  });

  it("rejects gates that are not a list of names, naming the field (a string was read letter by letter)", () => {
    const define = (gates: unknown) => () =>
      defineSuite<string, string>({
        id: "kinds",
        cases: [],
        target: (input) => input,
        scorers: [equalsExpected],
        gates: gates as string[],
      });
    expect(define("equals")).toThrow(
      'defineSuite("kinds"): `gates` must be a list of scorer names, got a string; name the scorers whose failure fails a case, such as gates: ["equals"], or leave gates out so that every scorer is a gate',
    );
    expect(define(5)).toThrow("`gates` must be a list of scorer names, got a number");
    expect(define(["equals", 5])).toThrow("`gates` must hold scorer names, got a number in it");
    // An empty list is a suite of points only.
    expect(define([])).not.toThrow();
  });
});

describe("runEval", () => {
  it("emits started, per case started/scored/finished, then finished, each with run id and time", async () => {
    const telemetry = arrayTelemetry<EvalEvent>();
    const report = await runEval(
      {
        id: "events",
        cases: [
          { id: "a", input: "a", expected: "a" },
          { id: "b", input: "b", expected: "nope" },
        ],
        scorers: [ran] as never,
      },
      { target: async (input: string) => input, telemetry, concurrency: 1 },
    );
    expect(report).toMatchObject({ total: 2, passedCount: 2, meanValue: 1 });
    const kinds = telemetry.events.map((e) => e.kind);
    expect(kinds).toEqual([
      "eval.started",
      "eval.case.started",
      "eval.case.scored",
      "eval.case.finished",
      "eval.case.started",
      "eval.case.scored",
      "eval.case.finished",
      "eval.finished",
    ]);
    for (const event of telemetry.events) {
      expect(event.runId).toBe(report.runId);
      expect(Number.isNaN(Date.parse(event.timestamp))).toBe(false);
    }
  });

  it("reports passedCount and meanValue with one scored event per scorer", async () => {
    const telemetry = arrayTelemetry<EvalEvent>();
    const half = createScorer<string, string>({ name: "half", score: () => ({ score: 0.5 }) });
    const report = await runEval(
      {
        id: "means",
        cases: [
          { id: "a", input: "a", expected: "a" },
          { id: "b", input: "b", expected: "x" },
        ],
        scorers: [equalsExpected, half] as never,
      },
      { target: async (input: string) => input, telemetry, concurrency: 1 },
    );
    expect(report.passedCount).toBe(1);
    expect(report.meanValue).toBeCloseTo((0.75 + 0.25) / 2);
    expect(telemetry.events.filter((e) => e.kind === "eval.case.scored")).toHaveLength(4);
    expect(report.cases[1]?.scores.map((s) => s.score?.passed)).toEqual([false, true]);
  });

  it("says which cases' meanValue left out a judgment that was unavailable, beside the lower-bound mean score", async () => {
    const telemetry = arrayTelemetry<EvalEvent>();
    const fine = createScorer<string, string>({ name: "fine", score: () => ({ score: 0.8 }) });
    const down = createScorer<string, string>({
      name: "down",
      score: ({ input }) => {
        if (input === "a") throw new JudgeUnavailableError("failed", "m", "rate limited");
        return { score: 0.8 };
      },
    });
    const report = await runEval(
      {
        id: "judged",
        cases: [
          { id: "a", input: "a" },
          { id: "b", input: "b" },
        ],
        scorers: [fine, down] as never,
      },
      { target: async (input: string) => input, telemetry, concurrency: 1 },
    );
    expect(report.cases.map((c) => [c.caseId, c.meanValue, c.partial])).toEqual([
      ["a", 0.8, true],
      ["b", 0.8, false],
    ]);
    expect(report.cases[0]?.record.score).toMatchObject({ state: "partial", earned: 0.8, max: 2 });
    // The unavailable score says why, where a reader of scores looks.
    expect(report.cases[0]?.scores[1]).toMatchObject({ state: "unavailable", score: null });
    expect(report.cases[0]?.scores[1]?.reason).toContain("rate limited");
    expect(report.cases[0]?.scores[0]?.reason).toBeUndefined();
    expect(report).toMatchObject({ meanValue: 0.8, scoredCount: 2, partialCount: 1 });
    const finished = telemetry.events.find((e) => e.kind === "eval.finished");
    expect(finished?.kind === "eval.finished" && finished.summary).toMatchObject({
      meanScore: (0.4 + 0.8) / 2,
      partialCases: 1,
    });
  });

  it("gives a case errored by its scorers alone an error naming them, each once", async () => {
    const fine = createScorer<string, string>({ name: "fine", score: () => ({ score: 1 }) });
    const broken = createScorer<string, string>({
      name: "broken",
      score: () => {
        throw new Error("no such field");
      },
    });
    const report = await runEval(
      { id: "scored", cases: [{ id: "a", input: "a" }], scorers: [fine, broken] as never },
      { target: async (input: string) => input },
    );
    expect(report.cases[0]?.verdict).toBe("errored");
    // The scorer's reason names it already: the error and the score's reasons say it once.
    expect(report.cases[0]?.error).toBe('scorer "broken" threw: no such field');
    expect(report.cases[0]?.record.score.reasons).toEqual(['scorer "broken" threw: no such field']);
  });

  it("says a score eval is run by runEvals or its own run(), not that it lacks a target", async () => {
    const app = defineAdapter({ name: "app", create: async () => ({}) });
    const scoreEval = app.defineScoreEval({ id: "review", description: "d", test() {} });
    await expect(runEval(scoreEval as never)).rejects.toThrow(
      'runEval: "review" is a score eval, which runEval does not take (it runs suites); run it with runEvals([{ eval }]) or its own run()',
    );
  });
});

describe("settings given through the API", () => {
  const suite = defineSuite<number, number>({
    id: "settings",
    cases: [{ id: "a", input: 1 }],
    target: (i) => i,
    scorers: [ran],
  });

  it.each([
    [
      "concurrency",
      { concurrency: Number.NaN },
      'runEval("settings"): `concurrency` must be a whole number from 1 to 1024, got NaN',
    ],
    [
      "concurrency",
      { concurrency: 1_000_000 },
      /^runEval\("settings"\): `concurrency` .* got 1000000$/,
    ],
    [
      "timeoutMs",
      { timeoutMs: Number.POSITIVE_INFINITY },
      /^runEval\("settings"\): `timeoutMs` .* got Infinity$/,
    ],
    [
      "timeoutMs",
      { timeoutMs: 2_147_483_647 },
      'runEval("settings"): `timeoutMs` must be a whole number of milliseconds from 1 to 2147482647, got 2147483647',
    ],
    [
      "timeoutMs",
      { timeoutMs: 1.5 },
      /^runEval\("settings"\): `timeoutMs` must be a whole number of milliseconds from 1 to \d+, got 1\.5$/,
    ],
  ])("runEval rejects a bad %s naming it, itself and the eval", async (_name, options, message) => {
    await expect(runEval(suite, options)).rejects.toThrow(message);
  });

  it("runEval names the option a misspelt one meant", async () => {
    await expect(runEval(suite, { timout: 50 } as object)).rejects.toThrow(
      'runEval("settings"): unknown key "options.timout" (did you mean "options.timeoutMs"?); known keys: options.target',
    );
  });

  it.each([
    [
      { concurency: 1 },
      'runEvals: unknown key "options.concurency" (did you mean "options.concurrency"?)',
    ],
    [
      { telemetry: { emit() {} } },
      "runEvals: options.telemetry must be an array, got an object (wrap one in [ ])",
    ],
    [{ reporters: { onRunFinished() {} } }, "runEvals: options.reporters must be an array"],
    [
      { signal: "stop" },
      'runEvals: options.signal must be an AbortSignal (an AbortController\'s signal), got "stop"',
    ],
    [{ concurrency: "4" }, 'concurrency must be a whole number from 1 to 1024, got "4"'],
    [
      { runId: "" },
      "runEvals: options.runId must be a non-empty string naming the run, got an empty string; pass an id of your own, or leave it out for a new random one",
    ],
    [{ runId: " " }, 'runEvals: options.runId must be a non-empty string naming the run, got " "'],
    [{ runId: 42 }, "runEvals: options.runId must be a non-empty string naming the run, got 42"],
  ])("runEvals refuses options it cannot follow: %o", async (options, message) => {
    await expect(runEvals([{ eval: suite }], options as never)).rejects.toThrow(message);
  });

  it("says a number given as a string was a string", async () => {
    await expect(runEval(suite, { timeoutMs: "500" as never })).rejects.toThrow(/got "500"$/);
  });

  it.each([
    [Number.NaN, /trials must be a whole number from 1 to 10000, got NaN/],
    [1e9, /trials .* got 1000000000/],
    [2.5, /trials .* got 2\.5/],
    [0, /trials .* got 0/],
  ])("runEvals rejects trials %s naming the option", async (trials, message) => {
    await expect(runEvals([{ eval: suite }], { trials })).rejects.toThrow(message);
  });

  it("runEvals rejects a fraction of a millisecond in caseTimeoutMs, naming the option", async () => {
    await expect(runEvals([{ eval: suite }], { caseTimeoutMs: 1.5 })).rejects.toThrow(
      /caseTimeoutMs must be a whole number of milliseconds .* got 1\.5/,
    );
  });

  it("runEval refuses an unknown or misspelt key of its options or of a plain suite, naming the eval", async () => {
    const plain = { id: "plain", cases: [{ id: "a", input: 1 }], scorers: [ran] };
    const target = (i: number) => i;
    await expect(runEval(plain, { target, timeout: 5 } as never)).rejects.toThrow(
      'runEval("plain"): unknown key "options.timeout" (did you mean "options.timeoutMs"?); known keys: options.target, options.telemetry, options.reporters, options.concurrency, options.timeoutMs, options.signal, options.abortGraceMs, options.keepOutput',
    );
    await expect(runEval({ ...plain, cass: [] } as never, { target })).rejects.toThrow(
      'runEval("plain"): unknown key "suite.cass" (did you mean "suite.cases"?); known keys: suite.id, suite.cases, suite.scorers',
    );
    // A setting only defineSuite has would have been dropped: say where it belongs.
    await expect(runEval({ ...plain, gates: ["ran"] } as never, { target })).rejects.toThrow(
      'runEval("plain"): "suite.gates" is a setting of defineSuite, which a plain { id, cases, scorers } suite does not have; make the suite with defineSuite({ …, target }) and pass that to runEval',
    );
    // A defineSuite suite carries its settings: nothing to refuse.
    const report = await runEval(defineSuite({ ...plain, target, gates: ["ran"] }));
    expect(report.passedCount).toBe(1);
  });

  it("runEvals refuses an entry that is not { eval }, naming its index and what it holds", async () => {
    const plain = { id: "x", cases: [{ id: "a", input: 1 }], scorers: [ran] };
    const entries: [unknown, string][] = [
      [
        [suite],
        'runEvals: entries[0] is the eval "settings" itself, not an entry; wrap it as { eval } (runEvals([{ eval: myEval }]))',
      ],
      [
        [{ eval: suite }, { eval: undefined }],
        "runEvals: entries[1].eval is undefined, not an eval; pass an eval from defineSuite, adapter.defineScoreEval or adapter.defineEval",
      ],
      [
        [{ eval: plain }],
        'runEvals: entries[0].eval is a plain object with id "x", not an eval; pass an eval from defineSuite, adapter.defineScoreEval or adapter.defineEval (a plain { id, cases, scorers } suite runs with runEval, or becomes an eval with defineSuite)',
      ],
      [[null], "runEvals: entries[0] is null, not an entry"],
      [{ eval: suite }, "runEvals: `entries` must be an array of { eval } entries, got an object"],
      [
        [{ eval: suite, file: 3 }],
        'runEvals: entries[0].file (eval "settings") is a number; give the path',
      ],
    ];
    for (const [given, message] of entries) {
      const records: AttemptRecord[] = [];
      await expect(runEvals(given as never, { onRecord: (r) => records.push(r) })).rejects.toThrow(
        message,
      );
      // Refused before anything ran.
      expect(records).toEqual([]);
    }
  });

  it("runEvals refuses two evals with one id, naming the id, both entries and their files", async () => {
    const make = (target: (i: number) => number) =>
      defineSuite<number, number>({
        id: "e",
        cases: [{ id: "a", input: 1, expected: 1 }],
        target,
        scorers: [ran],
      });
    const a = make((i) => i);
    const b = make((i) => i + 1);
    const other = make((i) => i).definition;
    const c = defineSuite({ ...other, id: "c" });
    const agent = defineAdapter({ name: "agent", create: () => ({}) });
    const review = () => agent.defineScoreEval({ description: "review", test() {} });
    const cases: [unknown, string][] = [
      [
        [{ eval: a }, { eval: b }],
        'runEvals: entries[1] has the eval id "e" of entries[0]; give each eval a unique id (a run\'s records and a store tell evals apart by id)',
      ],
      [
        [
          { eval: a, file: "evals/a.eval.ts" },
          { eval: c },
          { eval: b, file: "evals/b.eval.ts" },
          { eval: make((i) => i) },
        ],
        'runEvals: entries[2] (file evals/b.eval.ts) and entries[3] have the eval id "e" of entries[0] (file evals/a.eval.ts); give each eval a unique id',
      ],
      [
        [{ eval: a }, { eval: a }],
        'runEvals: entries[1] is the same eval "e" as entries[0]; pass each eval once (to run its cases more than once, set its trials or the run\'s)',
      ],
      [
        [{ eval: review() }, { eval: review() }],
        'runEvals: entries[1] has the eval id "agent.review" of entries[0]; give each eval a unique id (a run\'s records and a store tell evals apart by id): this id is derived from the adapter name "agent" and the description, the same for every eval one function makes, so give that function an id parameter and pass it to defineScoreEval({ id, … })',
      ],
    ];
    for (const [given, message] of cases) {
      const records: AttemptRecord[] = [];
      const refused = runEvals(given as never, { onRecord: (r) => records.push(r) });
      await expect(refused).rejects.toThrow(message);
      await expect(refused).rejects.toMatchObject({ code: "USAGE" });
      expect(records).toEqual([]);
    }
  });

  it("records the real elapsed time of an attempt stopped by the last-resort timeout", async () => {
    const never = defineSuite<number, number>({
      id: "never",
      cases: [{ id: "a", input: 1 }],
      target: () => new Promise<never>(() => {}),
      scorers: [ran],
    });
    const records: AttemptRecord[] = [];
    await runEvals([{ eval: never }], { caseTimeoutMs: 60, onRecord: (r) => records.push(r) });
    expect(records[0]?.verdict).toBe("errored");
    expect(records[0]?.elapsedMs).toBeGreaterThanOrEqual(55);
  });
});
