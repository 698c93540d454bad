import { describe, expect, it } from "vitest";
import { AuthoringError } from "../errors.js";
import { countWhere, filterWhere, inOrder, mapEach } from "./collection.js";
import { atLeast, atMost, equals } from "./compare.js";
import type { MaterialCollection } from "./types.js";
import { includes, isDefined } from "./values.js";

const partial = <T>(items: T[]): MaterialCollection<T> => ({
  state: "partial",
  items,
  reason: "recorder-full",
});

describe("countWhere", () => {
  it("counts over a complete collection or plain array", () => {
    const result = countWhere(equals(0), equals(3)).evaluate([0, 1, 0, 0]);
    expect(result).toMatchObject({ state: "matched", observed: { matched: 3, seen: 4 } });
    expect(countWhere(equals(0), 2).evaluate({ state: "complete", items: [0, 0, 0] }).state).toBe(
      "mismatched",
    );
  });

  it("over a partial collection is decided only when the seen items already decide it", () => {
    expect(countWhere(equals(true), atLeast(1)).evaluate(partial([false, true])).state).toBe(
      "matched",
    );
    const open = countWhere(equals(true), atLeast(1)).evaluate(partial([false]));
    expect(open.state).toBe("unavailable");
    expect(open.reason).toMatch(/between 0 and unknown.*recorder-full/);
    expect(countWhere(equals(true), atMost(1)).evaluate(partial([true, true])).state).toBe(
      "mismatched",
    );
    expect(countWhere(equals(true), equals(1)).evaluate(partial([true])).state).toBe("unavailable");
  });

  it("keeps unavailable items as a range of counts", () => {
    const items = [1, Number.NaN, 1];
    expect(countWhere(equals(1), atLeast(2)).evaluate(items).state).toBe("matched");
    expect(countWhere(equals(1), equals(2)).evaluate(items).state).toBe("unavailable");
    expect(countWhere(equals(1), atLeast(4)).evaluate(items).state).toBe("mismatched");
  });

  it("is unavailable over an unavailable collection and over a non-collection (marked wrongType)", () => {
    expect(
      countWhere(equals(1), 1).evaluate({ state: "unavailable", reason: "store offline" }),
    ).toMatchObject({
      state: "unavailable",
      reason: "store offline",
    });
    expect(countWhere(equals(1), 1).evaluate(5 as never)).toMatchObject({
      state: "unavailable",
      reason: "observed 5, but countWhere takes an array or a material collection",
      wrongType: true,
    });
    // An object is shown with its kind and what it holds, never as "object".
    expect(countWhere(equals(1), 1).evaluate({ items: [1] } as never).reason).toBe(
      'observed a plain object {"items":[1]}, but countWhere takes an array or a material collection',
    );
    expect(countWhere(equals(1), 1).evaluate(new Set([1, 2]) as never).reason).toBe(
      "observed a Set of 2 items [1,2], but countWhere takes an array or a material collection",
    );
    expect(atMost(3).evaluate(new Number(2) as never).reason).toBe(
      "observed an instance of Number 2, but atMost takes a number",
    );
  });

  it("rejects a count no collection can have when built", () => {
    expect(() => countWhere(equals(1), -1)).toThrow(AuthoringError);
    expect(() => countWhere(equals(1), 1.5)).toThrow(/non-negative integer/);
    expect(() => countWhere(equals(1), atLeast(-1))).toThrow(/uses -1, which is not a count/);
    expect(() => countWhere(equals(1), equals(1.5))).toThrow(/uses 1.5, which is not a count/);
    expect(() => countWhere(equals(1), atMost(2.5))).not.toThrow();
    expect(() => countWhere(equals(1), atMost(-1))).toThrow(/can never hold for a count/);
    expect(() => countWhere(equals(1), equals(-2))).toThrow(/can never hold/);
  });
});

describe("filterWhere and mapEach", () => {
  const speeches = [
    { actorId: "agent", delivered: true },
    { actorId: "customer", delivered: true },
    { actorId: "agent", delivered: false },
  ];
  const agent = mapEach((s: { actorId: string }) => s.actorId, countWhere(equals("agent"), 2));

  it("select then aggregate, reporting the selection", () => {
    const match = filterWhere(
      equals({ actorId: "agent", delivered: false }),
      mapEach((s: { delivered: boolean }) => s.delivered, countWhere(equals(false), 1)),
    );
    expect(match.evaluate(speeches)).toMatchObject({
      state: "matched",
      observed: { selected: 1, seen: 3 },
    });
    expect(agent.evaluate(speeches).state).toBe("matched");
  });

  it("keep partiality: mapping a partial collection cannot prove an exact count", () => {
    expect(agent.evaluate(partial(speeches)).state).toBe("unavailable");
  });

  it("make the selection partial when the selector is unavailable for an item", () => {
    const match = filterWhere(atLeast(1), countWhere(isDefined(), atMost(1)));
    expect(match.evaluate([1, Number.NaN, 2]).state).toBe("mismatched");
    const unknown = filterWhere(atLeast(1), countWhere(isDefined(), 1)).evaluate([1, Number.NaN]);
    expect(unknown.state).toBe("unavailable");
    expect(unknown.reason).toMatch(/could not be selected/);
  });
});

describe("inOrder", () => {
  it("finds a strict subsequence", () => {
    expect(inOrder(equals("a"), equals("b")).evaluate(["a", "x", "b"]).state).toBe("matched");
    expect(inOrder(equals("b"), equals("a")).evaluate(["a", "x", "b"]).state).toBe("mismatched");
    expect(inOrder(equals("a"), equals("a")).evaluate(["a"]).state).toBe("mismatched");
  });

  it("is unavailable when the rest may be among unseen items", () => {
    expect(inOrder(equals("a"), equals("b")).evaluate(partial(["a"])).state).toBe("unavailable");
    expect(inOrder(equals("a"), equals("b")).evaluate(partial(["a", "b"])).state).toBe("matched");
  });
});

describe("includes", () => {
  it("works on strings and collections, unavailable when a partial collection lacks it", () => {
    expect(includes("fund").evaluate("refund issued").state).toBe("matched");
    expect(includes(2).evaluate([1, 2]).state).toBe("matched");
    expect(includes(3).evaluate([1, 2]).state).toBe("mismatched");
    expect(includes(3).evaluate(partial([1, 2])).state).toBe("unavailable");
  });

  it("cannot judge a string for something other than a string: wrongType, never a mismatch", () => {
    // includes(42) on the text "order 42" is the author's mix-up, not the app's failure.
    expect(includes(42 as never).evaluate("order 42")).toMatchObject({
      state: "unavailable",
      wrongType: true,
      reason:
        'observed "order 42", but includes takes an array or a material collection when looking for 42 (a string is searched only for a string: includes("42"))',
    });
    expect(includes({ a: 1 } as never).evaluate("x").wrongType).toBe(true);
    expect(includes("42").evaluate("order 42").state).toBe("matched");
  });
});
