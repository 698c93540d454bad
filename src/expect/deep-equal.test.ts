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

  // A typed array (an image, audio, a Buffer) compared with its golden copy: Object.keys of one
  // of 2,000,000 bytes made as many strings, and took seconds in deepEqual, tens of seconds in
  // firstDifference; a Buffer of a few megabytes stalled its attempt for minutes.
  it("compares typed arrays item by item, in time proportional to their length", () => {
    const golden = new Uint8Array(2_000_000);
    const made = golden.slice();
    made[1_999_999] = 1;
    const started = performance.now();
    expect(deepEqual(made, golden)).toBe(false);
    expect(deepEqual(golden.slice(), golden)).toBe(true);
    expect(firstDifference(made, golden)).toEqual({
      kind: "values",
      path: [1_999_999],
      observed: 1,
      expected: 0,
    });
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("says where two typed arrays differ by index, as it does for arrays", () => {
    expect(
      firstDifference({ v: new Float64Array([1, 2]) }, { v: new Float64Array([1, 3]) }),
    ).toEqual({ kind: "values", path: ["v", 1], observed: 2, expected: 3 });
    expect(firstDifference(new Int8Array([1]), new Int8Array([1, 2]))).toEqual({
      kind: "missing",
      path: [1],
      expected: 2,
    });
    expect(firstDifference(new Int8Array([1, 2]), new Int8Array([1]))).toEqual({
      kind: "extra",
      path: [1],
      observed: 2,
    });
    // SameValueZero, as for numbers elsewhere; two kinds of typed array are two kinds.
    expect(deepEqual(new Float64Array([-0, Number.NaN]), new Float64Array([0, Number.NaN]))).toBe(
      true,
    );
    expect(deepEqual(new BigInt64Array([1n]), new BigInt64Array([2n]))).toBe(false);
    expect(firstDifference(new Uint8Array([1]), new Int8Array([1]))).toMatchObject({
      kind: "kinds",
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
