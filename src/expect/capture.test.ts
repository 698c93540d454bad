import { describe, expect, it } from "vitest";
import { AuthoringError } from "../errors.js";
import { defaultCapture, maxCapture, overBudget, resolveCapture } from "./capture.js";
import { countWhere } from "./collection.js";
import { atLeast, equals } from "./compare.js";
import { defineContextMatch, defineMaterialMatch } from "./context-match.js";
import type { MaterialCollection } from "./types.js";

type Facts = { items: MaterialCollection<unknown> };
const material = (capture: Parameters<typeof resolveCapture>[1]) =>
  defineMaterialMatch<Facts, unknown>({
    name: "items",
    read: (f) => f.items,
    match: equals<unknown>(1),
    ...(capture ? { capture } : {}),
  });
const complete = (items: unknown[]): Facts => ({ items: { state: "complete", items } });

describe("capture budgets", () => {
  it("fill defaults and reject invalid or over-maximum fields when built", () => {
    expect(resolveCapture("x", undefined)).toEqual(defaultCapture);
    expect(resolveCapture("x", { maxItems: 7 })).toEqual({ ...defaultCapture, maxItems: 7 });
    expect(() => material({ maxItems: maxCapture.maxItems + 1 })).toThrow(AuthoringError);
    expect(() => material({ maxDepth: 0 })).toThrow(
      /capture.maxDepth must be a whole number from 1 to 256/,
    );
    expect(() => material({ maxBytes: Number.NaN })).toThrow(/maxBytes/);
  });

  it("make material over any limit unavailable with a capacity-limited reason", () => {
    const cases: [Parameters<typeof material>[0], unknown[]][] = [
      [{ maxItems: 2 }, [1, 1, 1]],
      [{ maxBytes: 64 }, ["x".repeat(100)]],
      [{ maxNodes: 5 }, [[1, 2, 3, 4, 5]]],
      [{ maxDepth: 2 }, [[[[1]]]]],
    ];
    for (const [capture, items] of cases) {
      const result = material(capture).evaluate(complete(items));
      expect(result.state).toBe("unavailable");
      expect(result.reason).toMatch(/^capacity-limited: /);
    }
  });

  // The reason named the limit only; the author needs the match it belongs to and what to change.
  it("say which match was over which limit and what to do", () => {
    expect(material({ maxDepth: 2 }).evaluate(complete([[[[1]]]])).reason).toBe(
      'capacity-limited: nesting deeper than maxDepth 2 in defineMaterialMatch("items"); raise its capture.maxDepth (at most 256) or read less',
    );
    const atMaximum = material({ maxItems: maxCapture.maxItems }).evaluate(
      complete(Array.from({ length: maxCapture.maxItems + 1 }, () => 1)),
    );
    expect(atMaximum.reason).toBe(
      'capacity-limited: 16385 items, over maxItems 16384 in defineMaterialMatch("items"); capture.maxItems is at its maximum: read less (select or page the items in read)',
    );
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(material(undefined).evaluate(complete([cyclic])).reason).toBe(
      'capacity-limited: cyclic reference in defineMaterialMatch("items"); material must be a finite tree',
    );
  });

  it("never samples: within budget every item is matched", () => {
    const result = material({ maxItems: 3 }).evaluate(complete([0, 0, 1]));
    expect(result).toMatchObject({ state: "matched", observed: { selected: 1, seen: 3 } });
  });

  it("handles cycles and very deep values without a stack overflow", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(overBudget([cyclic], maxCapture)).toMatch(/^capacity-limited: cyclic/);
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(overBudget([deep], maxCapture)).toMatch(
      /^capacity-limited: nesting deeper than maxDepth 256/,
    );
    const shared = { a: 1 };
    expect(overBudget([shared, shared, { x: shared }], defaultCapture)).toBeUndefined();
  });

  it("apply to context matches only when asked", () => {
    const read = defineContextMatch<{ n: number[] }, number[]>({
      name: "numbers",
      read: (f) => ({ state: "available", value: f.n }),
      match: countWhere(equals(1), atLeast(1)),
      capture: { maxItems: 1, maxNodes: 3 },
    });
    expect(read.evaluate({ n: [1] }).state).toBe("matched");
    expect(read.evaluate({ n: [1, 1, 1] }).reason).toMatch(/^capacity-limited/);
  });
});

describe("material matches", () => {
  it("are unavailable over unavailable material and when nothing is selected from a partial one", () => {
    const match = material(undefined);
    expect(
      match.evaluate({ items: { state: "unavailable", reason: "store offline" } }),
    ).toMatchObject({
      state: "unavailable",
      reason: "store offline",
    });
    expect(match.evaluate({ items: { state: "partial", items: [0], reason: "cut" } }).state).toBe(
      "unavailable",
    );
    expect(match.evaluate({ items: { state: "partial", items: [1], reason: "cut" } }).state).toBe(
      "matched",
    );
    expect(match.evaluate(complete([0, 2])).state).toBe("mismatched");
  });

  it("select the matching items with their completeness", () => {
    const selection = material(undefined).select({
      items: { state: "partial", items: [1, 0, 1], reason: "cut" },
    });
    expect(selection).toMatchObject({ state: "partial", items: [1, 1] });
  });
});

describe("byte budget", () => {
  it("counts UTF-8 bytes, not UTF-16 units, near the limit", () => {
    const budget = { ...defaultCapture, maxBytes: 40 };
    expect(overBudget(["é".repeat(15)], budget)).toBeUndefined();
    expect(overBudget(["é".repeat(25)], budget)).toMatch(
      /^capacity-limited: more than maxBytes 40/,
    );
  });
});
