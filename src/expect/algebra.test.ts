import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countWhere } from "./collection.js";
import { atLeast, atMost, equals } from "./compare.js";
import { and, not, or } from "./logic.js";
import { stateOf } from "./result.js";
import type { BooleanMatch, MatchState, MaterialCollection } from "./types.js";
import { isDefined } from "./values.js";

// A leaf whose outcome is chosen by the generated value: lets properties range over all states.
const states: MatchState[] = ["matched", "mismatched", "unavailable"];
const leaf = (index: number): BooleanMatch<readonly MatchState[]> => ({
  kind: "match",
  name: `leaf${index}`,
  expects: `leaf ${index}`,
  evaluate: (value) => ({
    state: value[index]!,
    name: `leaf${index}`,
    expected: `leaf ${index}`,
    reason: value[index]!,
  }),
});

type Tree = BooleanMatch<readonly MatchState[]>;
const leaves = 3;
const tree: fc.Arbitrary<Tree> = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.integer({ min: 0, max: leaves - 1 }).map(leaf),
    tie("tree").map((m) => not(m)),
    fc
      .array(tie("tree"), { minLength: 1, maxLength: 3 })
      .map((ms) => and(...(ms as [Tree, ...Tree[]]))),
    fc
      .array(tie("tree"), { minLength: 1, maxLength: 3 })
      .map((ms) => or(...(ms as [Tree, ...Tree[]]))),
  ),
})).tree;
const world = fc.array(fc.constantFrom(...states), { minLength: leaves, maxLength: leaves });

const truthOrder: Record<MatchState, number> = { mismatched: 0, unavailable: 1, matched: 2 };

describe("matcher algebra (three-valued)", () => {
  it("not(not(m)) ≡ m", () => {
    fc.assert(
      fc.property(tree, world, (m, w) => not(not(m)).evaluate(w).state === m.evaluate(w).state),
    );
  });

  it("De Morgan: not(and(a, b)) ≡ or(not(a), not(b)) and dually", () => {
    fc.assert(
      fc.property(tree, tree, world, (a, b, w) => {
        expect(not(and(a, b)).evaluate(w).state).toBe(or(not(a), not(b)).evaluate(w).state);
        expect(not(or(a, b)).evaluate(w).state).toBe(and(not(a), not(b)).evaluate(w).state);
      }),
    );
  });

  it("and is the minimum and or the maximum of mismatched < unavailable < matched", () => {
    fc.assert(
      fc.property(fc.array(tree, { minLength: 1, maxLength: 4 }), world, (ms, w) => {
        const each = ms.map((m) => truthOrder[m.evaluate(w).state]);
        const all = ms as [Tree, ...Tree[]];
        expect(truthOrder[and(...all).evaluate(w).state]).toBe(Math.min(...each));
        expect(truthOrder[or(...all).evaluate(w).state]).toBe(Math.max(...each));
      }),
    );
  });

  it("an unavailable operand never turns and/or into a decided answer it could flip", () => {
    fc.assert(
      fc.property(tree, world, (m, w) => {
        const unknown = leaf(0);
        const open = ["unavailable", ...w.slice(1)] as MatchState[];
        const conj = and(m, unknown).evaluate(open).state;
        if (conj === "matched") expect(m.evaluate(open).state).toBe("matched");
        const disj = or(m, unknown).evaluate(open).state;
        if (disj === "mismatched") expect(m.evaluate(open).state).toBe("mismatched");
        if (m.evaluate(open).state === "mismatched") expect(conj).toBe("mismatched");
        if (m.evaluate(open).state === "matched") expect(disj).toBe("matched");
      }),
    );
  });
});

describe("countWhere over partial collections", () => {
  const bits = fc.array(fc.boolean(), { maxLength: 30 });
  const threshold = fc.integer({ min: 0, max: 35 });

  it("a decided answer over seen items holds for every completion of the collection", () => {
    fc.assert(
      fc.property(
        bits,
        bits,
        threshold,
        fc.constantFrom("atLeast", "atMost", "equals"),
        (seen, rest, n, kind) => {
          const count = kind === "atLeast" ? atLeast(n) : kind === "atMost" ? atMost(n) : equals(n);
          const match = countWhere(equals(true), count);
          const partial: MaterialCollection<boolean> = {
            state: "partial",
            items: seen,
            reason: "cut",
          };
          const decided = match.evaluate(partial).state;
          const full = match.evaluate([...seen, ...rest]).state;
          expect(full).not.toBe("unavailable");
          if (decided !== "unavailable") expect(full).toBe(decided);
        },
      ),
    );
  });

  it("over a complete collection it is always decided and agrees with a plain count", () => {
    fc.assert(
      fc.property(bits, threshold, (items, n) => {
        const state = countWhere(equals(true), atLeast(n)).evaluate(items).state;
        expect(state).toBe(items.filter(Boolean).length >= n ? "matched" : "mismatched");
      }),
    );
  });

  it("atLeast over a partial collection is matched exactly when the seen items reach it", () => {
    fc.assert(
      fc.property(bits, fc.integer({ min: 1, max: 10 }), (seen, n) => {
        const state = countWhere(equals(true), atLeast(n)).evaluate({
          state: "partial",
          items: seen,
          reason: "cut",
        }).state;
        expect(state).toBe(seen.filter(Boolean).length >= n ? "matched" : "unavailable");
      }),
    );
  });
});

describe("fast path", () => {
  it("test() agrees with evaluate().state for combinators and leaves", () => {
    fc.assert(
      fc.property(tree, world, (m, w) => {
        expect(stateOf(m, w)).toBe(m.evaluate(w).state);
      }),
    );
    const value = fc.oneof(
      fc.double(),
      fc.integer(),
      fc.string(),
      fc.constant(null),
      fc.constant(undefined),
    );
    fc.assert(
      fc.property(value, fc.integer({ min: -5, max: 5 }), (v, n) => {
        for (const m of [
          equals<unknown>(n),
          atLeast(n),
          atMost(n),
          not(atLeast(n)),
          and(atLeast(n), atMost(n + 1)),
          // A value of the wrong type for one argument is unavailable, whatever another decides.
          or(atLeast(n), isDefined()),
          and(isDefined(), atMost(n)),
        ]) {
          const match = m as BooleanMatch<unknown>;
          expect(match.test?.(v)).toBe(match.evaluate(v).state);
        }
      }),
    );
  });
});
