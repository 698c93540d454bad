import { describe, expect, it } from "vitest";
import { countWhere, filterWhere, inOrder, mapEach } from "./collection.js";
import { atLeast, atMost, equals } from "./compare.js";
import { defineMaterialMatch } from "./context-match.js";
import { and, not, or } from "./logic.js";
import { stateOf, wrongTypeIn } from "./result.js";
import type { BooleanMatch } from "./types.js";
import { includes, mapValue } from "./values.js";

// A value of the wrong type inside a combinator: no count, no and/or, no order turns it into a verdict.
const arr = ["a", "bb", "c"];
const s = "abc";
const onA = 'observed "a", but atMost takes a number';
const onAbc = 'observed "abc", but atMost takes a number';
const wrongAt = (reason: string) => ({ state: "unavailable", wrongType: true, reason });
const words = atMost(3) as unknown as BooleanMatch<string>;

describe("countWhere over items of the wrong type", () => {
  it("is wrongType, naming the item, whatever the count would have said", () => {
    expect(countWhere(words, atMost(5)).evaluate(arr)).toMatchObject(
      wrongAt(`countWhere item 0: ${onA}`),
    );
    expect(countWhere(words, atLeast(1)).evaluate(arr)).toMatchObject(
      wrongAt(`countWhere item 0: ${onA}`),
    );
  });

  it("names the first item of the wrong type after matched and missing ones", () => {
    const numbers = countWhere(atMost(3), atMost(5)) as BooleanMatch<unknown>;
    expect(numbers.evaluate([1, Number.NaN, "bb"])).toMatchObject(
      wrongAt('countWhere item 2: observed "bb", but atMost takes a number'),
    );
    // Only missing evidence: unavailable, never wrongType.
    expect(numbers.evaluate([1, Number.NaN, 9]).state).toBe("matched");
    const missing = countWhere(atMost(3), equals(1)).evaluate([1, Number.NaN]);
    expect(missing.state).toBe("unavailable");
    expect(missing.wrongType).toBeUndefined();
  });
});

describe("filterWhere and mapEach over items of the wrong type", () => {
  it("filterWhere is wrongType when its selector meets one, naming the item", () => {
    const match = filterWhere(words, countWhere(includes("a"), atMost(5)));
    expect(match.evaluate(arr)).toMatchObject(wrongAt(`filterWhere item 0: ${onA}`));
  });

  it("filterWhere is wrongType when its then meets one among the selected items", () => {
    // "bb" is item 1 of the collection, item 0 of the selection its then counts over.
    const match = filterWhere<string>(includes("b"), countWhere(words, atMost(5)));
    expect(match.evaluate(arr)).toMatchObject(
      wrongAt(
        'filterWhere then (over the 1 selected items): countWhere item 0: observed "bb", but atMost takes a number',
      ),
    );
  });

  it("mapEach keeps the wrongType of its then, whose items are numbered as its own", () => {
    const match = mapEach((item: string) => item, countWhere(words, atMost(5)));
    const result = match.evaluate(arr);
    expect(result).toMatchObject({ state: "unavailable", reason: `countWhere item 0: ${onA}` });
    expect(wrongTypeIn(result)).toMatchObject(wrongAt(`countWhere item 0: ${onA}`));
  });
});

describe("inOrder over items of the wrong type", () => {
  it("is wrongType, naming the step and the item, never missing evidence", () => {
    expect(inOrder(words).evaluate(arr)).toMatchObject(wrongAt(`inOrder step 1, item 0: ${onA}`));
    const second = inOrder(equals<unknown>("a"), atMost(3) as BooleanMatch<unknown>);
    expect(second.evaluate(["a", "bb"])).toMatchObject(
      wrongAt('inOrder step 2, item 1: observed "bb", but atMost takes a number'),
    );
  });

  it("keeps missing evidence unavailable, not wrongType", () => {
    const result = inOrder(atMost(3)).evaluate([Number.NaN]);
    expect(result.state).toBe("unavailable");
    expect(result.wrongType).toBeUndefined();
  });
});

describe("and / or with an argument of the wrong type", () => {
  it("is wrongType whatever another argument decides, naming the argument", () => {
    const conj = and(words, includes("z"));
    const disj = or(words, includes("a"));
    expect(conj.evaluate(s)).toMatchObject(wrongAt(`and argument 1: ${onAbc}`));
    expect(disj.evaluate(s)).toMatchObject(wrongAt(`or argument 1: ${onAbc}`));
    // Whichever comes first: an argument that decides does not hide a later one.
    expect(and(includes("z"), words).evaluate(s)).toMatchObject(
      wrongAt(`and argument 2: ${onAbc}`),
    );
    expect(or(includes("a"), words).evaluate(s)).toMatchObject(wrongAt(`or argument 2: ${onAbc}`));
  });

  it("says so through test() too, so a count over such items cannot decide", () => {
    expect(stateOf(and(words, includes("z")), s)).toBe("unavailable");
    expect(stateOf(or(includes("a"), words), s)).toBe("unavailable");
    const counted = countWhere(or(includes("a"), words), atMost(5));
    expect(counted.evaluate(arr)).toMatchObject(
      wrongAt(`countWhere item 0: or argument 2: ${onA}`),
    );
  });

  it("keeps a missing operand as it was: or decided by a match, and open", () => {
    expect(or(atMost(3), equals(7)).evaluate(Number.NaN).state).toBe("unavailable");
    expect(or(atMost(3), atLeast(0)).evaluate(2).state).toBe("matched");
    const open = and(atMost(3), atLeast(0)).evaluate(Number.NaN);
    expect(open.wrongType).toBeUndefined();
  });

  it("not and mapValue keep it wrongType through their child", () => {
    const negated = not(countWhere(words, atMost(5))).evaluate(arr);
    expect(negated.state).toBe("unavailable");
    expect(negated.children?.[0]).toMatchObject(wrongAt(`countWhere item 0: ${onA}`));
    const named = mapValue("first", (v: string[]) => v, countWhere(words, atMost(5)));
    expect(named.evaluate(arr).children?.[0]).toMatchObject(wrongAt(`countWhere item 0: ${onA}`));
  });
});

describe("defineMaterialMatch over items of the wrong type", () => {
  it("selects nothing and is wrongType, naming the item", () => {
    const material = defineMaterialMatch<{ items: string[] }, string>({
      name: "short",
      read: (facts) => facts.items,
      match: words,
    });
    const selection = material.select({ items: arr });
    expect(selection).toMatchObject({ state: "unavailable", reason: `short item 0: ${onA}` });
    expect(material.evaluate({ items: arr })).toMatchObject(wrongAt(`short item 0: ${onA}`));
  });
});
