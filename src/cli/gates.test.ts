import { describe, expect, it } from "vitest";
import { emptyJudgeUsage } from "../eval/record.js";
import type { EvalSummary } from "../runner/events.js";
import { unmetGates } from "./gates.js";

const summary = (over: Partial<EvalSummary>): EvalSummary => ({
  evalId: "qa",
  style: "suite",
  cases: 3,
  passed: 3,
  failed: 0,
  errored: 0,
  skipped: 0,
  meanScore: 1,
  sdScore: 0,
  scoredCases: 3,
  partialCases: 0,
  judge: emptyJudgeUsage(),
  elapsedMs: 1,
  ...over,
});

describe("unmetGates", () => {
  it("meets a threshold the mean equals but for floating-point rounding", () => {
    const mean = (0.7 + 0.7 + 0.7) / 3;
    expect(mean).toBeLessThan(0.7);
    expect(unmetGates([summary({ meanScore: mean })], { minScore: 0.7 })).toEqual([]);
    // Ten scores of 0.1 fall under 0.1 the same way.
    const tenths = Array.from({ length: 10 }, () => 0.1).reduce((a, b) => a + b) / 10;
    expect(tenths).toBeLessThan(0.1);
    expect(unmetGates([summary({ meanScore: tenths })], { minScore: 0.1 })).toEqual([]);
  });

  it("prints a mean just under the threshold with the digits that show it is under", () => {
    const [gate] = unmetGates([summary({ meanScore: 0.69996 })], { minScore: 0.7 });
    expect(gate?.message).toBe('eval "qa": mean score 0.69996 (n=3) is below --min-score 0.7');
    const [plain] = unmetGates([summary({ meanScore: 0.5 })], { minScore: 0.7 });
    expect(plain?.message).toBe('eval "qa": mean score 0.500 (n=3) is below --min-score 0.7');
  });

  it("prints a pass rate just under the threshold the same way", () => {
    const [gate] = unmetGates([summary({ passed: 2, failed: 1 })], { minPassRate: 0.667 });
    expect(gate?.message).toBe('eval "qa": pass rate 66.67% (2/3) is below --min-pass-rate 0.667');
    expect(unmetGates([summary({ passed: 2, failed: 1 })], { minPassRate: 2 / 3 })).toEqual([]);
  });
});
