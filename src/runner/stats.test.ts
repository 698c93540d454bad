import { describe, expect, it } from "vitest";
import type { AttemptRecord, Verdict } from "../eval/record.js";
import { record } from "../report/test-support/runs.js";
import { EvalAccumulator } from "./stats.js";

const attempt = (trial: number, verdict: Verdict, earned: number): AttemptRecord =>
  record({ evalId: "tr", caseId: "default", trial, verdict, score: scored(earned) });
const scored = (earned: number) => ({
  state: "complete" as const,
  earned,
  max: 10,
  reasons: [],
});

describe("EvalAccumulator", () => {
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
});
