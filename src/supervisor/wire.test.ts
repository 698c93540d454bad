import { describe, expect, it } from "vitest";
import { isPlainJson } from "./wire.js";

describe("isPlainJson", () => {
  it("accepts what JSON gives back unchanged", () => {
    const record = {
      evalId: "e",
      score: { state: "complete", earned: 1, max: 1, reasons: [] },
      judgments: [{ label: "x", value: 0.5, gate: true, note: null, reason: "a\u2028b\ud800" }],
      nested: Object.assign(Object.create(null) as object, { a: [1, [2, { b: "c" }]] }),
    };
    expect(isPlainJson(record)).toBe(true);
    expect(JSON.parse(JSON.stringify([record]))).toEqual([structuredClone(record)]);
  });

  it("refuses what JSON would change or drop, so it goes by structured clone", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const sparse = [1, 2, 3];
    delete sparse[1];
    for (const value of [
      { a: undefined },
      [undefined],
      sparse,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      -0,
      10n,
      new Date(0),
      new Map(),
      new Uint8Array(2),
      new Error("x"),
      () => 1,
      Symbol("s"),
      cyclic,
    ]) {
      expect(isPlainJson({ value })).toBe(false);
    }
  });
});
