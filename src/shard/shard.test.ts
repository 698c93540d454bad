import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseShard, shardOf, shardSelector } from "./shard.js";

describe("parseShard", () => {
  it("reads i/n, 1-based", () => {
    expect(parseShard("1/4")).toEqual({ index: 1, count: 4 });
    expect(parseShard("4/4")).toEqual({ index: 4, count: 4 });
    expect(parseShard("1/1")).toEqual({ index: 1, count: 1 });
  });

  it.each([
    ["0/2", /an index i from 1 to 2/],
    ["3/2", /an index i from 1 to 2/],
    ["a/b", /two whole numbers/],
    ["1/0", /a count n from 1/],
    ["1.5/2", /two whole numbers/],
    ["-1/2", /two whole numbers/],
    ["2", /two whole numbers/],
    ["", /two whole numbers/],
  ])("refuses %j as a usage error", (text, why) => {
    expect(() => parseShard(text)).toThrow(why);
    try {
      parseShard(text);
    } catch (error) {
      expect(error).toMatchObject({ code: "USAGE" });
      expect((error as Error).message).toContain(`got "${text}"`);
    }
  });
});

describe("shardOf", () => {
  it("is a pure function of the eval and case ids (the same case always lands in the same shard)", () => {
    // Fixed values: a change of the hash would move every stored shard's cases.
    expect([1, 2, 3, 4, 5].map((i) => shardOf("qa", `case-${i}`, 4))).toEqual([4, 2, 2, 3, 4]);
    expect(shardOf("qa", "a", 1)).toBe(1);
    expect(shardOf("a/b", "c", 1000)).not.toBe(shardOf("a", "b/c", 1000));
  });

  it("puts every case in exactly one shard in 1..n", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.integer({ min: 1, max: 64 }), (e, c, n) => {
        const shard = shardOf(e, c, n);
        expect(shard).toBeGreaterThanOrEqual(1);
        expect(shard).toBeLessThanOrEqual(n);
        const selected = Array.from({ length: n }, (_, i) =>
          shardSelector({ index: i + 1, count: n })(e, c, 0),
        );
        expect(selected.filter(Boolean)).toHaveLength(1);
      }),
    );
  });

  it("balances by cases: 40,000 sequential ids over 4 shards are within 3% of 10,000 each", () => {
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 40_000; i++) counts[shardOf("suite", `case-${i}`, 4) - 1]!++;
    for (const count of counts) expect(Math.abs(count - 10_000)).toBeLessThan(300);
  });

  it("keeps every trial of a case in the case's shard", () => {
    const keep = shardSelector({ index: 2, count: 3 });
    for (let i = 0; i < 100; i++) {
      const id = `c${i}`;
      const trials = [0, 1, 2, 3].map((t) => keep("e", id, t));
      expect(new Set(trials).size).toBe(1);
      expect(trials[0]).toBe(shardOf("e", id, 3) === 2);
    }
  });
});
