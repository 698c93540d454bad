import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { binomialHalfLowerTail, logChoose, logGamma } from "./binomial.js";
import { mcnemarExact } from "./mcnemar.js";

/** P[X ≤ k] for X ~ Binomial(n, ½) with exact integers. */
function exactTail(k: number, n: number): number {
  let sum = 0n;
  let c = 1n;
  for (let i = 0; i <= k; i++) {
    if (i > 0) c = (c * BigInt(n - i + 1)) / BigInt(i);
    sum += c;
  }
  // Enough decimal digits that even the smallest tail keeps 40 of them.
  const digits = 40 + Math.ceil(n * Math.log10(2));
  return Number((sum * 10n ** BigInt(digits)) / 2n ** BigInt(n)) / 10 ** digits;
}

describe("mcnemarExact", () => {
  it("matches hand-computed tables", () => {
    // 2 · (C(10,0) + C(10,1)) / 2^10 = 22/1024
    expect(mcnemarExact(1, 9).pValue).toBeCloseTo(0.021484375, 12);
    expect(mcnemarExact(9, 1).pValue).toBeCloseTo(0.021484375, 12);
    expect(mcnemarExact(0, 0).pValue).toBe(1);
    expect(mcnemarExact(5, 5).pValue).toBe(1);
    expect(mcnemarExact(0, 5).pValue).toBeCloseTo(2 / 32, 12);
    expect(mcnemarExact(1, 9)).toMatchObject({ worse: 1, better: 9, discordant: 10 });
  });

  it("agrees with exact integer arithmetic", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 400 }), (b, c) => {
        const expected = Math.min(1, 2 * exactTail(Math.min(b, c), b + c));
        const { pValue } = mcnemarExact(b, c);
        expect(Math.abs(pValue - expected)).toBeLessThanOrEqual(1e-10 * expected + 1e-300);
      }),
      { numRuns: 200 },
    );
  });

  it("stays finite at 200,000 discordant pairs", () => {
    // z = 2000/√200000 ≈ 4.47: the normal tail is about 7.7e-6.
    const p = mcnemarExact(99_000, 101_000).pValue;
    expect(p).toBeGreaterThan(6e-6);
    expect(p).toBeLessThan(9e-6);
    expect(mcnemarExact(100_000, 100_000).pValue).toBe(1);
    expect(mcnemarExact(0, 200_000).pValue).toBe(0);
  });

  it("rejects counts that are not counts", () => {
    expect(() => mcnemarExact(-1, 2)).toThrow(RangeError);
    expect(() => mcnemarExact(1.5, 2)).toThrow(/integer/);
  });
});

describe("binomial helpers", () => {
  it("log-gamma and log-choose match factorials", () => {
    expect(logGamma(10)).toBeCloseTo(Math.log(362_880), 12);
    expect(logGamma(0.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI)), 12);
    expect(logChoose(10, 3)).toBeCloseTo(Math.log(120), 12);
    expect(logChoose(100, 50)).toBeCloseTo(Math.log(Number(100891344545564193334812497256n)), 10);
    expect(logChoose(5, 6)).toBe(Number.NEGATIVE_INFINITY);
  });

  it("binomial tail is a CDF", () => {
    expect(binomialHalfLowerTail(-1, 10)).toBe(0);
    expect(binomialHalfLowerTail(10, 10)).toBe(1);
    expect(binomialHalfLowerTail(5, 10)).toBeCloseTo(638 / 1024, 12);
    expect(binomialHalfLowerTail(3, 20)).toBeCloseTo(exactTail(3, 20), 14);
  });
});
