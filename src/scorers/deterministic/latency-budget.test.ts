import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type LatencyBudgetInput, latencyBudget } from "./latency-budget.js";

describe("latencyBudget", () => {
  it("passes with value 1 under and at the budget", () => {
    expect(latencyBudget({ durationMs: 40, budgetMs: 100 })).toEqual({
      value: 1,
      passed: true,
      label: "latency-budget",
      rationale: "40ms within budget of 100ms",
    });
    expect(latencyBudget({ durationMs: 100, budgetMs: 100 })).toMatchObject({
      value: 1,
      passed: true,
    });
  });

  it("fails over budget with value 1 - over / budget", () => {
    expect(latencyBudget({ durationMs: 150, budgetMs: 100 })).toEqual({
      value: 0.5,
      passed: false,
      label: "latency-budget",
      rationale: "150ms over budget of 100ms by 50ms",
    });
    expect(latencyBudget({ durationMs: 101, budgetMs: 100 }).value).toBeCloseTo(0.99, 10);
  });

  it("says by how much a duration is over when the rounding would hide it (exact comparison, seed 002)", () => {
    expect(latencyBudget({ durationMs: 0.1 + 0.2, budgetMs: 0.3 })).toEqual({
      value: expect.closeTo(1, 10),
      passed: false,
      label: "latency-budget",
      rationale: "0.30000000000000004ms over budget of 0.3ms by 5.6e-17ms",
    });
    expect(latencyBudget({ durationMs: 100.0004, budgetMs: 100 }).rationale).toBe(
      "100.0004ms over budget of 100ms by 0.0004ms",
    );
    expect(latencyBudget({ durationMs: 100.2, budgetMs: 100 }).rationale).toBe(
      "100.2ms over budget of 100ms by 0.2ms",
    );
  });

  it("reaches 0 at twice the budget and stays there far over it", () => {
    expect(latencyBudget({ durationMs: 200, budgetMs: 100 }).value).toBe(0);
    expect(latencyBudget({ durationMs: 1e9, budgetMs: 100 })).toMatchObject({
      value: 0,
      passed: false,
    });
  });

  it("with a zero budget passes only a zero duration", () => {
    expect(latencyBudget({ durationMs: 0, budgetMs: 0 })).toMatchObject({ value: 1, passed: true });
    expect(latencyBudget({ durationMs: 1, budgetMs: 0 })).toMatchObject({
      value: 0,
      passed: false,
    });
  });

  it.each([
    ["durationMs", -1, 100],
    ["durationMs", Number.NaN, 100],
    ["durationMs", Number.POSITIVE_INFINITY, 100],
    ["durationMs", undefined, 100],
    ["durationMs", "50", 100],
    ["budgetMs", 10, -5],
    ["budgetMs", 10, Number.NaN],
    ["budgetMs", 10, undefined],
  ])(
    "is errored, never a failed 0, naming %s when it is %s / %s",
    (field, durationMs, budgetMs) => {
      const score = latencyBudget({ durationMs, budgetMs } as LatencyBudgetInput);
      expect(score).toMatchObject({
        value: 0,
        passed: false,
        errored: true,
        label: "latency-budget",
      });
      expect(score.rationale).toMatch(
        new RegExp(`^invalid ${field}: .* \\(must be a finite number >= 0\\)$`),
      );
    },
  );

  it("names a BigInt as one, which reads like a number", () => {
    const score = latencyBudget({
      durationMs: 50n,
      budgetMs: 100,
    } as unknown as LatencyBudgetInput);
    expect(score).toMatchObject({ value: 0, passed: false, errored: true });
    expect(score.rationale).toBe(
      "invalid durationMs: 50n is a BigInt (must be a finite number >= 0: convert it with Number())",
    );
  });

  it.each([
    [undefined, "undefined"],
    [null, "null"],
    [150, "150"],
  ])("is errored, not a TypeError, when the input is %s", (input, shown) => {
    const score = latencyBudget(input as unknown as LatencyBudgetInput);
    expect(score).toMatchObject({ value: 0, passed: false, errored: true });
    expect(score.rationale).toBe(
      `invalid input: ${shown}; pass { durationMs, budgetMs } in milliseconds`,
    );
  });

  const ms = fc.double({ min: 0, max: 1e7, noNaN: true });
  const budget = fc.double({ min: Number.MIN_VALUE, max: 1e7, noNaN: true });

  it("keeps the value within [0, 1] and passes exactly within budget (property)", () => {
    fc.assert(
      fc.property(ms, budget, (durationMs, budgetMs) => {
        const score = latencyBudget({ durationMs, budgetMs });
        expect(score.value).toBeGreaterThanOrEqual(0);
        expect(score.value).toBeLessThanOrEqual(1);
        expect(score.passed).toBe(durationMs <= budgetMs);
      }),
    );
  });

  it("never scores a slower run higher (property)", () => {
    fc.assert(
      fc.property(ms, ms, budget, (a, b, budgetMs) => {
        const [fast, slow] = a <= b ? [a, b] : [b, a];
        const fastScore = latencyBudget({ durationMs: fast, budgetMs }).value;
        const slowScore = latencyBudget({ durationMs: slow, budgetMs }).value;
        expect(slowScore).toBeLessThanOrEqual(fastScore);
      }),
    );
  });

  it("matches the seed formula (property)", () => {
    fc.assert(
      fc.property(ms, budget, (durationMs, budgetMs) => {
        const expected =
          durationMs <= budgetMs ? 1 : Math.max(0, 1 - (durationMs - budgetMs) / budgetMs);
        expect(latencyBudget({ durationMs, budgetMs }).value).toBe(expected);
      }),
    );
  });
});
