import { describe, expect, it } from "vitest";
import { emptyJudgeUsage, unreportedUsage } from "../eval/record.js";
import { record } from "../report/test-support/runs.js";
import { attemptOutcome } from "./attributes.js";

describe("attemptOutcome", () => {
  it("flags a judge cost that leaves out calls the price table had no price for", () => {
    const judge = { ...emptyJudgeUsage(), calls: 3, inputTokens: 30, outputTokens: 6 };
    const unpriced = { calls: 2, inputTokens: 20, outputTokens: 4, models: ["openai/gpt-5"] };
    const outcome = (usage: typeof judge) =>
      attemptOutcome(record({ usage: { app: unreportedUsage(), judge: usage } }), (t) => t);
    expect(outcome({ ...judge, costUsd: 0.01 })).not.toHaveProperty(
      "niceeval.judge.unpriced_calls",
    );
    expect(outcome({ ...judge, costUsd: 0.01, unpriced })).toMatchObject({
      "niceeval.judge.cost_usd": 0.01,
      "niceeval.judge.unpriced_calls": 2,
    });
  });
});
