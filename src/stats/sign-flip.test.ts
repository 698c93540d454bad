import { describe, expect, it } from "vitest";
import { mcnemarExact } from "./mcnemar.js";
import { signFlipTest, smallestSignTestP, unitsToReach } from "./sign-flip.js";

describe("signFlipTest", () => {
  it("equals McNemar's exact test on 0/1 differences", () => {
    for (const [worse, better] of [
      [4, 0],
      [7, 2],
      [10, 3],
      [1, 1],
    ] as const) {
      const units = [...Array(worse).fill(-1), ...Array(better).fill(1), 0, 0, 0];
      const test = signFlipTest(units);
      expect(test.method).toBe("exact");
      expect(test.pValue).toBeCloseTo(mcnemarExact(worse, better).pValue, 12);
    }
  });

  it("counts patterns as extreme as the observed sum, with ties in magnitude", () => {
    // Patterns of (0.5, 0.5, 1): sums ±2 (2 patterns), ±1 (4), 0 (2); observed −2.
    expect(signFlipTest([-0.5, -0.5, -1]).pValue).toBe(2 / 8);
    // Observed −1: |sum| ≥ 1 in 6 of 8 patterns.
    expect(signFlipTest([0.5, -0.5, -1]).pValue).toBe(6 / 8);
    expect(signFlipTest([0, 0]).pValue).toBe(1);
    // 0.1 + 0.2 is not 0.3 in floating point; the observed pattern still counts as extreme.
    expect(signFlipTest([-0.1, -0.2, 0.3]).pValue).toBe(1);
  });

  it("draws seeded random patterns past 16 differing units, then uses the normal approximation", () => {
    const units = Array.from({ length: 40 }, (_, i) => (i < 28 ? -0.5 : 0.25 + (i % 3) * 0.1));
    const drawn = signFlipTest(units, { seed: 7 });
    expect(drawn).toMatchObject({ method: "monte-carlo", differing: 40, resamples: 10_000 });
    expect(signFlipTest(units, { seed: 7 }).pValue).toBe(drawn.pValue);
    const normal = signFlipTest(units, { resamples: 0 });
    expect(normal.method).toBe("normal");
    // The draws estimate the same p as the normal approximation, within their noise.
    expect(Math.abs(drawn.pValue - normal.pValue)).toBeLessThan(0.01);
    expect(drawn.pValue).toBeLessThan(0.01);
    expect(signFlipTest(units, { budget: 1000 }).method).toBe("normal");
    expect(signFlipTest(units, { resamples: 19 }).method).toBe("normal");
  });
});

describe("unitsToReach", () => {
  it("is the fewest units whose smallest exact p, every unit one way, falls below alpha", () => {
    expect(unitsToReach(0.05)).toBe(6);
    // Below, not at: 5 units reach 0.0625 exactly, which is no significance at 0.0625.
    expect(unitsToReach(0.0625)).toBe(6);
    expect(unitsToReach(0.05 / 3)).toBe(7);
    expect(unitsToReach(1)).toBe(2);
    for (const m of [1, 5, 6, 12]) {
      const oneWay = Array(m).fill(-0.38);
      expect(signFlipTest(oneWay).pValue).toBeCloseTo(smallestSignTestP(m), 12);
      expect(mcnemarExact(m, 0).pValue).toBeCloseTo(smallestSignTestP(m), 12);
    }
    expect(() => unitsToReach(0)).toThrow(RangeError);
  });
});
