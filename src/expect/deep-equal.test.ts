import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deepEqual, firstDifference } from "./deep-equal.js";

describe("firstDifference", () => {
  it("finds a difference exactly when deepEqual says the values differ", () => {
    const value = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      fc.property(value, value, (a, b) => {
        expect(firstDifference(a, b) === undefined).toBe(deepEqual(a, b));
        expect(firstDifference(a, structuredClone(a))).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });

  it("walks the expected value's keys in order, then the keys it lacks", () => {
    expect(firstDifference({ b: 0, a: 0, z: 1 }, { a: 1, b: 2 })).toEqual({
      kind: "values",
      path: ["a"],
      observed: 0,
      expected: 1,
    });
    expect(firstDifference({ a: 1, z: 1 }, { a: 1, b: 2 })).toMatchObject({
      kind: "missing",
      path: ["b"],
    });
  });

  it("compares cyclic values without overflowing", () => {
    const a: Record<string, unknown> = { name: "x" };
    a.self = a;
    const b: Record<string, unknown> = { name: "y" };
    b.self = b;
    expect(firstDifference(a, b)).toMatchObject({ path: ["name"], observed: "x", expected: "y" });
  });
});
