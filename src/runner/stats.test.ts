import { describe, expect, it } from "vitest";
import { type AttemptRecord, emptyJudgeUsage, unreportedUsage } from "../eval/record.js";
import { EvalAccumulator } from "./stats.js";

const attempt = (caseId: string, earned: number): AttemptRecord => ({
  evalId: "qa",
  caseId,
  verdict: earned === 1 ? "passed" : "failed",
  score: { state: "complete", earned, max: 1, reasons: [] },
  judgments: [],
  usage: { app: unreportedUsage(), judge: emptyJudgeUsage() },
  elapsedMs: 1,
});

const meanOf = (earned: number[]) => {
  const summary = new EvalAccumulator("qa", "suite");
  for (const [i, e] of earned.entries()) summary.add(attempt(`c${i}`, e));
  return summary.finish(0).meanScore;
};

describe("EvalAccumulator", () => {
  it("gives the same mean score whatever order the attempts finish in", () => {
    // Eight passes then two failures once averaged to 0.7999999999999999, and --min-score 0.8
    // failed the run that the other order passed.
    expect(meanOf([1, 1, 1, 1, 1, 1, 1, 1, 0, 0])).toBe(0.8);
    expect(meanOf([0, 0, 1, 1, 1, 1, 1, 1, 1, 1])).toBe(0.8);
  });
});
