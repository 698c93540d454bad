import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { countWhere, filterWhere, inOrder, mapEach } from "./collection.js";
import { atLeast, atMost, equals, greaterThan } from "./compare.js";
import { defineContextMatch, defineMaterialMatch, type MaterialMatch } from "./context-match.js";
import { and, not, or } from "./logic.js";
import type {
  BooleanMatch,
  CollectionValue,
  MatchFact,
  MaterialCollection,
  NumericMaterial,
} from "./types.js";
import { isDefined, mapValue, matches } from "./values.js";

type Speech = { readonly actorId: string; readonly text: string; readonly delivered: boolean };
type Facts = {
  readonly speeches: MaterialCollection<Speech>;
  readonly completion: MatchFact<number>;
};

const actorMatch = (actorId: string) =>
  mapValue("actorMatch", (s: Speech) => s.actorId, equals(actorId));

describe("evidence types", () => {
  it("are discriminated unions of plain data", () => {
    expectTypeOf<NumericMaterial>().toEqualTypeOf<MatchFact<number>>();
    const latency: NumericMaterial = { state: "unavailable", reason: "summary-capacity-exceeded" };
    expectTypeOf(latency).toExtend<{ state: "available" | "unavailable" }>();
    expectTypeOf<{ state: "partial"; items: Speech[] }>().not.toExtend<
      MaterialCollection<Speech>
    >();
    expectTypeOf<{ state: "partial"; items: Speech[]; reason: string }>().toExtend<
      MaterialCollection<Speech>
    >();
    expectTypeOf<readonly Speech[]>().toExtend<CollectionValue<Speech>>();
  });
});

describe("inference through composition", () => {
  it("equals widens literals for its input and keeps them as the narrowed type", () => {
    expectTypeOf(equals(0)).toEqualTypeOf<BooleanMatch<number, number>>();
    expectTypeOf(equals("met" as const)).toEqualTypeOf<BooleanMatch<string, "met">>();
    expectTypeOf(atMost(1)).toEqualTypeOf<BooleanMatch<number, number>>();
  });

  it("equals of an array or an object accepts readonly facts, and as const values", () => {
    const check = <T>(_fact: T, _match: BooleanMatch<T, unknown>) => {};
    const tags: readonly string[] = ["a"];
    const nested: { readonly b: readonly string[]; readonly n: number } = { b: [], n: 1 };
    check(tags, equals(["a", "b"]));
    check(tags, equals(["a", "b"] as const));
    check(nested, equals({ b: ["x"], n: 1 }));
    check(nested, equals({ b: ["x"], n: 1 } as const));
    check(["a"], equals(["a"]));
    // @ts-expect-error an array of numbers cannot judge strings
    check(tags, equals([1, 2]));
    // @ts-expect-error a string cannot judge an array
    check(tags, equals("a"));
  });

  it("mapValue takes its input from the projection", () => {
    expectTypeOf(actorMatch("agent")).toEqualTypeOf<BooleanMatch<Speech, Speech>>();
    // @ts-expect-error a number match cannot judge a string projection
    mapValue("actorMatch", (s: Speech) => s.actorId, atLeast(1));
  });

  it("and intersects inputs and narrowed types, even of union inputs", () => {
    const both = and(
      actorMatch("a"),
      mapValue("len", (s: { text: string }) => s.text.length, greaterThan(0)),
    );
    expectTypeOf(both).toEqualTypeOf<
      BooleanMatch<Speech & { text: string }, Speech & { text: string }>
    >();
    type Item = Speech | { kind: "reference" };
    const either = or(
      mapValue("ref", (i: Item) => "kind" in i, equals(true)),
      mapValue("ok", (i: Item) => i !== null, equals(true)),
    );
    expectTypeOf(either).toEqualTypeOf<BooleanMatch<Item, Item>>();
    expectTypeOf(not(actorMatch("a"))).toEqualTypeOf<BooleanMatch<Speech, Speech>>();
  });

  it("filterWhere and mapEach carry the item type through the collection", () => {
    const delivery = filterWhere(
      actorMatch("agent"),
      mapEach((s: Speech) => s.delivered, countWhere(equals(true), atLeast(1))),
    );
    expectTypeOf(delivery).toEqualTypeOf<
      BooleanMatch<CollectionValue<Speech>, CollectionValue<Speech>>
    >();
    expectTypeOf(delivery).toExtend<BooleanMatch<MaterialCollection<Speech>, unknown>>();
    const strings = countWhere(equals("yes"), atLeast(1));
    // @ts-expect-error the aggregate must judge booleans, not strings
    mapEach((s: Speech) => s.delivered, strings);
    const delivered = mapEach((s: Speech) => s.delivered, countWhere(equals(true), 1));
    // @ts-expect-error the selector must judge speeches
    filterWhere(atLeast(1), delivered);
    expectTypeOf(inOrder(actorMatch("a"), actorMatch("b"))).toEqualTypeOf<
      BooleanMatch<CollectionValue<Speech>, CollectionValue<Speech>>
    >();
  });

  it("countWhere's aggregate fits the seed's BooleanMatch<CollectionValue<boolean>, …>", () => {
    expectTypeOf(countWhere(equals(true), atLeast(1))).toExtend<
      BooleanMatch<CollectionValue<boolean>, CollectionValue<boolean>>
    >();
    expectTypeOf(countWhere(equals(0), equals(3))).toEqualTypeOf<
      BooleanMatch<CollectionValue<number>, CollectionValue<number>>
    >();
  });

  it("matches narrows to the schema's output, isDefined strips null", () => {
    expectTypeOf(matches(z.object({ id: z.string() }))).toEqualTypeOf<
      BooleanMatch<unknown, { id: string }>
    >();
    expectTypeOf(isDefined<string | null>()).toEqualTypeOf<BooleanMatch<string | null, string>>();
  });
});

describe("context and material matches", () => {
  it("read the facts with the declared types", () => {
    const speeches = defineMaterialMatch<Facts, Speech>({
      name: "speeches",
      read: (f) => f.speeches,
      match: actorMatch("a"),
    });
    expectTypeOf(speeches).toEqualTypeOf<MaterialMatch<Facts, Speech>>();
    defineContextMatch<Facts, number>({
      name: "completion",
      read: (f) => f.completion,
      match: atMost(180),
    });
    const wrong = { name: "completion", read: (f: Facts) => f.completion, match: equals("x") };
    // @ts-expect-error the match must judge the fact's type
    defineContextMatch<Facts, number>(wrong);
  });
});
