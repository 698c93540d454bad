import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { inverseNormalCdf, normalCdf, zForLevel } from "./normal.js";

describe("normal distribution", () => {
  it("matches tabulated values", () => {
    expect(normalCdf(0)).toBe(0.5);
    expect(normalCdf(-1)).toBeCloseTo(0.158655253931457, 14);
    expect(normalCdf(1.959963984540054)).toBeCloseTo(0.975, 14);
    expect(normalCdf(-3)).toBeCloseTo(0.00134989803163009, 15);
    expect(inverseNormalCdf(0.975)).toBeCloseTo(1.959963984540054, 13);
    expect(inverseNormalCdf(0.8)).toBeCloseTo(0.8416212335729143, 13);
    expect(inverseNormalCdf(1e-10)).toBeCloseTo(-6.361340902404056, 10);
    expect(zForLevel(0.95)).toBeCloseTo(1.959963984540054, 13);
    expect(zForLevel(0.99)).toBeCloseTo(2.5758293035489, 12);
  });

  it("handles the edges", () => {
    expect(inverseNormalCdf(0)).toBe(Number.NEGATIVE_INFINITY);
    expect(inverseNormalCdf(1)).toBe(Number.POSITIVE_INFINITY);
    expect(inverseNormalCdf(1.5)).toBeNaN();
    expect(normalCdf(40)).toBe(1);
  });

  it("inverts the CDF", () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-12, max: 1 - 1e-12, noNaN: true }), (p) => {
        expect(normalCdf(inverseNormalCdf(p)) / p).toBeCloseTo(1, 7);
      }),
    );
  });
});
