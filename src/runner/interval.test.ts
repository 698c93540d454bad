import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { wilsonInterval } from "./interval.js";

describe("wilsonInterval", () => {
  it("matches known values", () => {
    const ci = wilsonInterval(8, 10)!;
    expect(ci.low).toBeCloseTo(0.4902, 3);
    expect(ci.high).toBeCloseTo(0.9433, 3);
  });

  it("keeps a non-zero width at 100% and is null without data", () => {
    const all = wilsonInterval(5, 5)!;
    expect(all.high).toBe(1);
    expect(all.low).toBeLessThan(0.6);
    expect(wilsonInterval(0, 0)).toBeNull();
  });

  it("always contains the observed proportion and stays within [0, 1]", () => {
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
