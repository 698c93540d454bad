import { describe, expect, it } from "vitest";
import type { AttemptRecord } from "../eval/record.js";
import { RunStop } from "../eval/run-origin.js";
import { defineSuite } from "../eval/suite.js";
import { evalFigures, runPassRateFigure } from "../report/figures.js";
import { createScorer } from "../scorers/create-scorer.js";
import { runEvals } from "./run.js";

const same = createScorer<string, string>({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("an attempt the run's stop cut off", () => {
  it("is errored as interrupted, keeps its judgments, and leaves the mean; one that ended before stays", async () => {
    const controller = new AbortController();
    const suite = defineSuite<string, string>({
      id: "cut",
      concurrency: 2,
      cases: [
        { id: "done", input: "done", expected: "done" },
        { id: "gives-up", input: "gives-up", expected: "gives-up" },
      ],
      // The first answers at once; the second stops the run, then answers with what it has.
      target: async (input, { signal }) => {
        if (input === "done") return input;
        await sleep(5);
        controller.abort(new Error("interrupted by SIGINT"));
        return signal.aborted ? "partial" : input;
      },
      scorers: [same],
    });
    const records: AttemptRecord[] = [];
    const summary = await runEvals([{ eval: suite }], {
      signal: controller.signal,
      reporters: [{ onCaseFinished: (record) => records.push(record) }],
    });
    const [done, cut] = records;
    expect(done?.verdict).toBe("passed");
    expect(done?.error).toBeUndefined();
    expect(cut?.verdict).toBe("errored");
    expect(cut?.error).toEqual({
      // Run from code, which has no resume: none is promised.
      message:
        "the run was stopped (interrupted by SIGINT) while this attempt ran; its failed verdict is not kept",
      where: 'eval "cut", case "gives-up"',
      interrupted: true,
    });
    // What it got is still there to look at, but it is not a measurement of the application.
    expect(cut?.judgments.map((j) => [j.label, j.earned])).toEqual([["same", 0]]);
    expect(cut?.score.state).toBe("unavailable");
    expect(summary.evals[0]?.meanScore).toBe(1);
    expect(summary.totals).toMatchObject({ passed: 1, failed: 0, errored: 1, interrupted: 1 });
    // Nor is it in the pass rate: it was not judged, and missing evidence is never a failure.
    expect(summary.evals[0]?.interrupted).toBe(1);
    expect(runPassRateFigure(summary)).toMatchObject({ rate: 1, passed: 1, n: 1, interrupted: 1 });
    expect(evalFigures(summary.evals[0]!).passRate).toMatchObject({ rate: 1, n: 1 });
  });

  it("says a resumed run runs it again only where its stop says the run can be resumed", async () => {
    const messages: string[] = [];
    // A stored CLI run's stop can be resumed; one under --no-store cannot, nor can code's.
    for (const reason of [
      new RunStop("interrupted by SIGINT", true),
      new RunStop("interrupted by SIGINT", false),
      new Error("interrupted by SIGINT"),
    ]) {
      const controller = new AbortController();
      const suite = defineSuite<string, string>({
        id: "cli",
        cases: [{ id: "a", input: "a", expected: "a" }],
        target: (input) => {
          controller.abort(reason);
          return sleep(1).then(() => input);
        },
        scorers: [same],
      });
      await runEvals([{ eval: suite }], {
        origin: "cli",
        signal: controller.signal,
        onRecord: (record) => messages.push(record.error?.message ?? ""),
      });
    }
    const stopped =
      "the run was stopped (interrupted by SIGINT) while this attempt ran; its passed verdict is not kept";
    expect(messages).toEqual([`${stopped}, and a resumed run runs it again`, stopped, stopped]);
  });

  it("does not start, nor count, an attempt that was still waiting for its eval's concurrency", async () => {
    const controller = new AbortController();
    const started: string[] = [];
    const suite = defineSuite<string, string>({
      id: "one-at-a-time",
      concurrency: 1,
      cases: [
        { id: "first", input: "first", expected: "first" },
        { id: "waiting", input: "waiting", expected: "waiting" },
      ],
      // The first stops the run while it runs; the second would answer at once from a stopped signal.
      target: async (input, { signal }) => {
        started.push(input);
        if (input === "first") {
          await sleep(5);
          controller.abort(new Error("interrupted by SIGTERM"));
        }
        return signal.aborted ? "partial" : input;
      },
      scorers: [same],
    });
    const records: AttemptRecord[] = [];
    const summary = await runEvals([{ eval: suite }], {
      signal: controller.signal,
      reporters: [{ onCaseFinished: (record) => records.push(record) }],
    });
    expect(started).toEqual(["first"]);
    // As with the run's own concurrency: a case that had not started is not in the run.
    expect(records.map((r) => [r.caseId, r.verdict, r.error?.interrupted])).toEqual([
      ["first", "errored", true],
    ]);
    expect(summary.cancelled).toBe(true);
    expect(summary.totals).toMatchObject({ cases: 1, errored: 1 });
    expect(summary.evals[0]?.cases).toBe(1);
    // The summary says what the stop left unstarted: the case read, with none left unread.
    expect(summary.stopped).toEqual({ notStarted: 1, unread: [] });
  });

  it("names the evals whose cases the stop left unread", async () => {
    const controller = new AbortController();
    const suite = (id: string) =>
      defineSuite<string, string>({
        id,
        concurrency: 1,
        // An endless dataset: how many cases did not start is not known.
        cases: function* () {
          for (let i = 0; ; i++) yield { id: `c${i}`, input: `c${i}`, expected: `c${i}` };
        },
        target: (input) => {
          controller.abort(new Error("interrupted by SIGINT"));
          return input;
        },
        scorers: [same],
      });
    const summary = await runEvals([{ eval: suite("first") }, { eval: suite("second") }], {
      concurrency: 1,
      signal: controller.signal,
    });
    expect(summary.cancelled).toBe(true);
    expect(summary.stopped).toEqual({ notStarted: 0, unread: ["first", "second"] });
  });
});
