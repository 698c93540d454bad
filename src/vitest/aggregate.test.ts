import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { aggregate } from "./aggregate.js";

const scores = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), {
  minLength: 1,
  maxLength: 20,
});

describe("aggregate", () => {
  it("computes mean, median (midpoint of the two middle values) and sum", () => {
    expect(aggregate([1, 0, 0.5], "mean")).toBe(0.5);
    expect(aggregate([1, 0, 0.25], "median")).toBe(0.25);
    expect(aggregate([1, 0, 0.25, 0.75], "median")).toBe(0.5);
    expect(aggregate([1, 0, 0.25], "sum")).toBe(1.25);
  });

  it("aggregates no scores to 0", () => {
    expect(aggregate([], "mean")).toBe(0);
    expect(aggregate([], "median")).toBe(0);
    expect(aggregate([], "sum")).toBe(0);
  });

  it("keeps mean and median between the smallest and largest score", () => {
    fc.assert(
      fc.property(scores, (values) => {
        const low = Math.min(...values);
        const high = Math.max(...values);
        for (const kind of ["mean", "median"] as const) {
          const value = aggregate(values, kind);
          expect(value).toBeGreaterThanOrEqual(low - 1e-12);
          expect(value).toBeLessThanOrEqual(high + 1e-12);
        }
      }),
    );
  });

  it("does not depend on the order of the scores", () => {
    fc.assert(
      fc.property(scores, (values) => {
        const reversed = [...values].reverse();
        expect(aggregate(reversed, "median")).toBe(aggregate(values, "median"));
        expect(aggregate(reversed, "sum")).toBeCloseTo(aggregate(values, "sum"), 9);
      }),
    );
  });

  it("makes the sum n times the mean", () => {
    fc.assert(
      fc.property(scores, (values) => {
        expect(aggregate(values, "sum")).toBeCloseTo(values.length * aggregate(values, "mean"), 9);
      }),
    );
  });
});
