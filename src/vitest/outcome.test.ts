import { describe, expect, it } from "vitest";
import type { AttemptRecord, Judgment } from "../eval/record.js";
import { emptyJudgeUsage, unreportedUsage } from "../eval/record.js";
import { erroredJudgment, fromNamedScore } from "../eval/suite.js";
import { invalidItem, itemFailureMessage, judgeItem, overallLine } from "./outcome.js";

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

  const unavailable = {
    ...erroredJudgment("b", 'scorer "b": judge "m" unavailable: no key'),
    state: "unavailable" as const,
  };
  it.each([
    ["an errored scorer", erroredJudgment("b", 'scorer "b" threw: x'), "error", "1 scorer errored"],
    ["an unavailable score", unavailable, "unavailable", "1 score unavailable"],
  ] as const)(
    "fails on %s whatever the others score, and gives the item no score",
    (_, judgment, key, says) => {
      const outcome = judgeItem(record([fromNamedScore("a", 1, undefined, 0), judgment]), "sum", 0);
      const line = `b: ${judgment.state} (${judgment.reason})`;
      expect(outcome).toMatchObject({ passed: false, score: null });
      expect(outcome.scores[1]).toEqual({ name: "b", score: null, [key]: line });
      expect(itemFailureMessage(settings, outcome)).toBe(
        `evaluate "e", item "item": ${says}, which fails the item (mean score 1 >= threshold 0.6 over the others)\n  a: 1\n  ${line}`,
      );
    },
  );

  it("meets a threshold that the scores reach but for floating-point rounding", () => {
    const seventy = ["a", "b", "c"].map((name) => fromNamedScore(name, 0.7, undefined, 0.7));
    const mean = judgeItem(record(seventy), "mean", 0.7);
    expect(mean.passed).toBe(true);
    const sum = judgeItem(
      record([fromNamedScore("a", 0.7, undefined, 0), fromNamedScore("b", 0.1, undefined, 0)]),
      "sum",
      0.8,
    );
    expect(sum.passed).toBe(true);
    // The message's gate reads as the verdict does.
    const gate = { name: "e", aggregation: "sum" as const, threshold: 0.8 };
    expect(itemFailureMessage(gate, sum)).toContain("sum score 0.8 >= threshold 0.8");
    // A real shortfall still fails.
    expect(judgeItem(record(seventy), "mean", 0.70001).passed).toBe(false);
  });

  it("aggregates a score outside 0..1 as given, as seed 003 takes any finite score", () => {
    const outcome = judgeItem(
      record([fromNamedScore("a", 4, undefined, 1), fromNamedScore("b", 0, undefined, 1)]),
      "mean",
      1,
    );
    expect(outcome).toMatchObject({ passed: true, score: 2 });
  });

  it("fails on a task error and says so first", () => {
    const outcome = judgeItem(record([], "timed out"), "mean", 0);
    expect(outcome).toMatchObject({ passed: false, score: null });
    expect(itemFailureMessage(settings, outcome)).toBe(
      'evaluate "e", item "item": the task failed: timed out',
    );
  });
});

describe("overallLine", () => {
  it("counts passes, averages the scored items only and says why the others have no score", () => {
    const passed = judgeItem(record([fromNamedScore("a", 1, undefined, 0.6)]), "mean", 0.6);
    const failed = judgeItem(record([fromNamedScore("a", 0.2, undefined, 0.6)]), "mean", 0.6);
    const crashed = judgeItem(record([], "boom"), "mean", 0.6);
    const broken = judgeItem(
      record([fromNamedScore("a", 1, undefined, 0.6), erroredJudgment("b", "threw")]),
      "mean",
      0.6,
    );
    expect(overallLine(settings, [passed, failed, broken, crashed, broken])).toBe(
      'niceeval evaluate "e": 1/5 items passed (mean score >= 0.6); mean item score 0.6 (n=2); 3 items not scored (task failed: 1, scorer errored: 2)',
    );
    expect(overallLine(settings, [crashed])).toBe(
      'niceeval evaluate "e": 0/1 items passed (mean score >= 0.6); no item scored; 1 item not scored (task failed: 1)',
    );
  });

  it("counts invalid items and items Vitest failed, so the line agrees with Vitest's count", () => {
    const passed = judgeItem(record([fromNamedScore("a", 1, undefined, 0.6)]), "mean", 0.6);
    const invalid = invalidItem("bad", "item 2 is an object without an `input` field");
    const softFailed = {
      ...passed,
      passed: false,
      testError: "AssertionError: expected 1 to be 2",
    };
    const timedOut = {
      item: "slow",
      passed: false,
      score: null,
      scores: [],
      testError: "Error: Test timed out",
    };
    expect(overallLine(settings, [passed, invalid, softFailed, timedOut])).toBe(
      'niceeval evaluate "e": 1/4 items passed (mean score >= 0.6); mean item score 1 (n=2); 2 items not scored (invalid item: 1, test failed: 1); 1 item reached the threshold but its test failed in Vitest, so it does not pass',
    );
    expect(overallLine(settings, [softFailed, softFailed])).toContain(
      "; 2 items reached the threshold but their tests failed in Vitest, so they do not pass",
    );
  });
});
