import { describe, expect, it } from "vitest";
import { emptyJudgeUsage, unreportedUsage } from "../eval/record.js";
import { type RecordRules, recordProblem } from "./record-problem.js";

const rules: RecordRules = { trials: new Map([["qa", 2]]), trialsBounded: true };
const record = (over: Record<string, unknown> = {}) => ({
  evalId: "qa",
  caseId: "c1",
  trial: 1,
  verdict: "passed",
  score: { state: "complete", earned: 0.3, max: 0.3, reasons: [] },
  judgments: [
    {
      label: "x",
      source: "t.score",
      state: "matched",
      gate: false,
      points: 0.3,
      earned: 0.1 + 0.2,
      reason: "",
    },
  ],
  usage: { app: unreportedUsage(), judge: emptyJudgeUsage() },
  elapsedMs: 0,
  ...over,
});

describe("recordProblem", () => {
  it("accepts what a run writes, sums of points rounded included", () => {
    expect(recordProblem(record(), rules)).toBeUndefined();
    expect(recordProblem(record({ score: { ...record().score, earned: 0 } }), rules)).toBe(
      undefined,
    );
  });

  it("bounds the trial by the manifest, unless a forced continuation may have changed it", () => {
    expect(recordProblem(record({ trial: 2 }), rules)).toContain(
      'has trial 2, but the manifest line gives eval "qa" 2 trials per case',
    );
    expect(recordProblem(record({ trial: 2 }), { ...rules, trialsBounded: false })).toBe(undefined);
    // A manifest that does not say an eval's trials bounds nothing.
    const unsaid: RecordRules = { ...rules, trials: new Map([["qa", undefined]]) };
    expect(recordProblem(record({ trial: 9 }), unsaid)).toBeUndefined();
  });

  it("takes the judge calls a price table had no price for, and refuses any other shape of them", () => {
    const unpriced = { calls: 2, inputTokens: 10, outputTokens: 3, models: ["openai/gpt-5"] };
    const judge = { ...emptyJudgeUsage(), calls: 2, costUsd: 0.1, unpriced };
    const usage = { app: unreportedUsage(), judge };
    expect(recordProblem(record({ usage }), rules)).toBeUndefined();
    const wrong = {
      ...usage,
      judge: { ...judge, unpriced: { ...unpriced, models: "openai/gpt-5" } },
    };
    expect(recordProblem(record({ usage: wrong }), rules)).toBe(
      'has usage.judge.unpriced {"calls":2,"inputTokens":10,"outputTokens":3,"models":"openai/gpt-5"}; it holds calls, inputTokens and outputTokens (finite numbers from 0) and models (strings)',
    );
  });
});
