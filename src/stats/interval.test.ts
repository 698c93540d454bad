import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { meanInterval, t975, wilsonInterval, Z95 } from "./interval.js";

describe("wilsonInterval", () => {
  it("matches published values", () => {
    // Newcombe (1998), table I: 8/10 → 0.4902–0.9433; 15/148 → 0.0624–0.1605
    const a = wilsonInterval(8, 10)!;
    expect(a.low).toBeCloseTo(0.4902, 4);
    expect(a.high).toBeCloseTo(0.9433, 4);
    const b = wilsonInterval(15, 148)!;
    expect(b.low).toBeCloseTo(0.0624, 4);
    expect(b.high).toBeCloseTo(0.1605, 4);
    const zero = wilsonInterval(0, 20)!;
    expect(zero.low).toBe(0);
    expect(zero.high).toBeCloseTo(0.1611, 4);
    expect(wilsonInterval(0, 0)).toBeNull();
    // Exactly 0 and 1 at the ends, for every n (0 of 3 left 5.55e-17 of rounding in JSON).
    for (let n = 1; n <= 200; n++) {
      expect(wilsonInterval(0, n)!.low).toBe(0);
      expect(wilsonInterval(n, n)!.high).toBe(1);
    }
  });

  it("contains the observed proportion and stays within [0, 1]", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (n, share) => {
          const k = Math.round(share * n);
          const ci = wilsonInterval(k, n)!;
          expect(ci.low).toBeGreaterThanOrEqual(0);
          expect(ci.high).toBeLessThanOrEqual(1);
          expect(ci.low).toBeLessThanOrEqual(k / n + 1e-12);
          expect(ci.high).toBeGreaterThanOrEqual(k / n - 1e-12);
        },
      ),
    );
  });
});

describe("meanInterval", () => {
  it("is mean ± t(0.975, n - 1)·sd/√n, null without a spread", () => {
    // t(0.975, 15) = 2.131450 (published tables).
    const ci = meanInterval(0.5, 0.2, 16)!;
    expect(ci.low).toBeCloseTo(0.5 - 2.13145 * 0.05, 6);
    expect(ci.high).toBeCloseTo(0.5 + 2.13145 * 0.05, 6);
    expect(ci.method).toBe("t");
    // A mean of 3 cases: 4.302653 sd/√n, not the normal approximation's 1.96.
    const small = meanInterval(0.833, 0.289, 3)!;
    expect(small.low).toBeCloseTo(0.833 - (4.302653 * 0.289) / Math.sqrt(3), 6);
    expect(meanInterval(0.5, null, 16)).toBeNull();
    expect(meanInterval(0.5, 0.2, 1)).toBeNull();
  });

  it("is null for values all equal, but for rounding: 0.9–0.9 is no interval", () => {
    expect(meanInterval(0.9, 0, 3)).toBeNull();
    expect(meanInterval(0.9, 1.4e-16, 3)).toBeNull();
    expect(meanInterval(0, 0, 5)).toBeNull();
    expect(meanInterval(0.9, 1e-6, 3)).not.toBeNull();
  });
});

describe("t975", () => {
  it("matches published quantiles, and tends to z", () => {
    // R: qt(0.975, df)
    for (const [df, t] of [
      [1, 12.706205],
      [2, 4.302653],
      [10, 2.228139],
      [30, 2.042272],
      [31, 2.039513],
      [40, 2.021075],
      [60, 2.000298],
      [120, 1.97993],
      [1000, 1.962339],
    ] as const)
      expect(t975(df)).toBeCloseTo(t, 5);
    expect(t975(1e9)).toBeCloseTo(Z95, 6);
  });
});
