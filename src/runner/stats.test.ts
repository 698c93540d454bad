import { describe, expect, it } from "vitest";
import type { AttemptRecord, Verdict } from "../eval/record.js";
import { record } from "../report/test-support/runs.js";
import { EvalAccumulator } from "./stats.js";

const attempt = (trial: number, verdict: Verdict, earned: number, max = 10): AttemptRecord =>
  record({ evalId: "tr", caseId: "default", trial, verdict, score: scored(earned, max) });
const scored = (earned: number, max: number) => ({
  state: "complete" as const,
  earned,
  max,
  reasons: [],
});

const meanOf = (earned: number[]) => {
  const summary = new EvalAccumulator("qa", "suite");
  for (const [i, e] of earned.entries())
    summary.add(attempt(i, e === 1 ? "passed" : "failed", e, 1));
  return summary.finish(0).meanScore;
};

describe("EvalAccumulator", () => {
  it("gives the same mean score whatever order the attempts finish in", () => {
    // Eight passes then two failures once averaged to 0.7999999999999999, and --min-score 0.8
    // failed the run that the other order passed.
    expect(meanOf([1, 1, 1, 1, 1, 1, 1, 1, 0, 0])).toBe(0.8);
    expect(meanOf([0, 0, 1, 1, 1, 1, 1, 1, 1, 1])).toBe(0.8);
  });

  it("counts the attempts whose score was unavailable apart from those without points", () => {
    const fold = new EvalAccumulator("qa", "score");
    fold.add(attempt(0, "passed", 0, 0));
    fold.add(
      record({
        evalId: "qa",
        caseId: "b",
        verdict: "errored",
        score: { state: "unavailable", earned: 0, max: 4, reasons: [] },
      }),
    );
    fold.add(
      record({
        evalId: "qa",
        caseId: "c",
        verdict: "skipped",
        score: { state: "unavailable", earned: 0, max: 4, reasons: [] },
      }),
    );
    expect(fold.finish(0)).toMatchObject({ meanScore: null, scoredCases: 0, unscoredCases: 1 });
    const gatesOnly = new EvalAccumulator("qa", "score");
    gatesOnly.add(attempt(0, "passed", 0, 0));
    expect(gatesOnly.finish(0).unscoredCases).toBeUndefined();
  });

  it("leaves a skipped attempt out of the mean score, as out of the pass rate, even one whose score reads complete", () => {
    const fold = new EvalAccumulator("tr", "score", 3);
    fold.add(attempt(0, "passed", 0));
    fold.add(attempt(1, "passed", 10));
    // As stored before t.skip made the score unavailable.
    fold.add(attempt(2, "skipped", 10));
    const summary = fold.finish(0);
    expect(summary).toMatchObject({
      cases: 3,
      passed: 2,
      skipped: 1,
      meanScore: 0.5,
      scoredCases: 2,
      partialCases: 0,
    });
    expect(summary.trials).toMatchObject({ cases: 1, attempts: 3, skipped: 1 });
    expect(summary.trials?.score.mean.value).toBe(0.5);
  });

  it("keeps, with trials, the per-case sums its figures' intervals over cases come from", () => {
    const fold = new EvalAccumulator("tr", "suite", 2);
    const trials: [string, Verdict, number][] = [
      ["a", "passed", 10],
      ["a", "passed", 8],
      ["b", "passed", 6],
      ["b", "failed", 2],
      ["c", "failed", 0],
      ["c", "failed", 4],
    ];
    for (const [i, [caseId, verdict, earned]] of trials.entries())
      fold.add(
        record({
          evalId: "tr",
          caseId,
          trial: i % 2,
          verdict,
          score: scored(earned, 10),
        }),
      );
    const summary = fold.finish(0);
    expect(summary).toMatchObject({ cases: 6, passed: 3, scoredCases: 6, meanScore: 0.5 });
    const spread = summary.trials!.spread!;
    // The same attempts as the counts: cases a, b, c with 2, 1 and 0 of their 2 trials passing.
    expect(spread.passed).toEqual({ cases: 3, n: 6, c: 3, cc: 5, cn: 6, nn: 12 });
    // Case score sums 1.8, 0.8 and 0.4 around 2 × 0.5.
    expect(spread.scores.cases).toBe(3);
    expect(spread.scores.n).toBe(6);
    expect(spread.scores.residuals).toBeCloseTo(0.8 ** 2 + 0.2 ** 2 + 0.6 ** 2, 12);
  });

  it("keeps no trial summary, and so no per-case sums, for cases run once", () => {
    const fold = new EvalAccumulator("once", "suite");
    fold.add(attempt(0, "passed", 10));
    expect(fold.finish(0).trials).toBeUndefined();
  });
});
