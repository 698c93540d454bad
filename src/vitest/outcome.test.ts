import { describe, expect, it } from "vitest";
import type { AttemptRecord, Judgment } from "../eval/record.js";
import { emptyJudgeUsage, unreportedUsage } from "../eval/record.js";
import { erroredJudgment, fromNamedScore } from "../eval/suite.js";
import { itemFailureMessage, judgeItem, overallLine } from "./outcome.js";

const record = (judgments: Judgment[], error?: string): AttemptRecord => ({
  evalId: "e",
  caseId: "item",
  verdict: "passed",
  score: { state: "complete", earned: 0, max: 0, reasons: [] },
  judgments,
  usage: { app: unreportedUsage(), judge: emptyJudgeUsage() },
  elapsedMs: 1,
  ...(error ? { error: { message: error, where: "target" } } : {}),
});
const settings = { name: "e", aggregation: "mean" as const, threshold: 0.6 };

describe("judgeItem", () => {
  it("aggregates values with null as 0 and holds them to the threshold", () => {
    const outcome = judgeItem(
      record([fromNamedScore("a", 1, undefined, 0.6), fromNamedScore("b", null, undefined, 0.6)]),
      "mean",
      0.6,
    );
    expect(outcome).toMatchObject({ passed: false, score: 0.5 });
    expect(itemFailureMessage(settings, outcome)).toBe(
      'evaluate "e", item "item": mean score 0.5 < threshold 0.6\n  a: 1\n  b: null (counts as 0)',
    );
  });

  it("fails on an errored scorer whatever the others score", () => {
    const outcome = judgeItem(
      record([fromNamedScore("a", 1, undefined, 0), erroredJudgment("b", 'scorer "b" threw: x')]),
      "sum",
      0,
    );
    expect(outcome).toMatchObject({ passed: false, score: 1 });
    expect(outcome.scores[1]).toEqual({
      name: "b",
      score: null,
      error: 'b: errored (scorer "b" threw: x)',
    });
  });

  it("fails on a task error and says so first", () => {
    const outcome = judgeItem(record([], "timed out"), "mean", 0);
    expect(outcome.passed).toBe(false);
    expect(itemFailureMessage(settings, outcome)).toBe(
      'evaluate "e", item "item": the task failed: timed out',
    );
  });
});

describe("overallLine", () => {
  it("counts passes and averages the scored items only", () => {
    const passed = judgeItem(record([fromNamedScore("a", 1, undefined, 0.6)]), "mean", 0.6);
    const failed = judgeItem(record([fromNamedScore("a", 0.2, undefined, 0.6)]), "mean", 0.6);
    const crashed = judgeItem(record([], "boom"), "mean", 0.6);
    expect(overallLine(settings, [passed, failed, crashed])).toBe(
      'niceeval evaluate "e": 1/3 items passed (mean score >= 0.6); mean item score 0.6 (n=2); 1 task failure(s) not scored',
    );
    expect(overallLine(settings, [crashed])).toBe(
      'niceeval evaluate "e": 0/1 items passed (mean score >= 0.6); no item scored; 1 task failure(s) not scored',
    );
  });
});
