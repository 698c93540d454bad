import { describe, expect, it } from "vitest";
import { AuthoringError } from "../errors.js";
import { atLeast, atMost, equals, greaterThan, lessThan } from "./compare.js";
import { not } from "./logic.js";
import { includes } from "./values.js";

describe("equals", () => {
  it("compares primitives and plain data, with expected and observed on the node", () => {
    expect(equals(3).evaluate(3)).toMatchObject({
      state: "matched",
      name: "equals",
      expected: "equals 3",
      observed: 3,
    });
    expect(equals("a").evaluate("b")).toMatchObject({
      state: "mismatched",
      reason: 'observed "b", expected "a"',
    });
    expect(equals({ a: [1, { b: 2 }] }).evaluate({ a: [1, { b: 2 }] }).state).toBe("matched");
    expect(equals({ a: [1, { b: 2 }] }).evaluate({ a: [1, { b: 3 }] }).state).toBe("mismatched");
  });

  it("writes two numbers that differ with the digits that tell them apart", () => {
    expect(equals(1).evaluate(1.0000001).reason).toBe("observed 1.0000001, expected 1");
    expect(equals(0.1234567).evaluate(0.1234568)).toMatchObject({
      expected: "equals 0.1234567",
      reason: "observed 0.123457, expected 0.1234567",
    });
    expect(equals(2).evaluate(2.5).reason).toBe("observed 2.5, expected 2");
  });

  it("says where two objects or arrays first differ, as a JSON pointer, with what each holds there", () => {
    const reason = (expected: unknown, value: unknown) => equals(expected).evaluate(value).reason;
    expect(equals({ a: { b: 1 } }).evaluate({ a: { b: 2 } })).toMatchObject({
      reason: "/a/b: observed 2, expected 1",
      observed: '{"a":{"b":2}}',
    });
    expect(equals([1, 2, 3]).evaluate([1, 2, 4]).observed).toBe("[1,2,4]");
    expect(reason({ items: [{ id: 1, price: 4 }] }, { items: [{ id: 1, price: 3 }] })).toBe(
      "/items/0/price: observed 3, expected 4",
    );
    expect(reason({ a: 1, b: 2 }, { a: 1 })).toBe("/b: missing, expected 2");
    expect(reason({ a: 1 }, { a: 1, c: "x" })).toBe('/c: observed "x", not expected');
    expect(reason([1, 2], [1, 2, 3])).toBe("/2: observed 3, not expected");
    expect(reason({ a: [1] }, { a: { 0: 1 } })).toBe(
      "/a: observed a plain object, expected an array of 1 item",
    );
    expect(reason({ "a/b~": { "": 1 } }, { "a/b~": { "": 1.0000001 } })).toBe(
      "/a~1b~0/: observed 1.0000001, expected 1",
    );
    expect(reason(new Map([["k", new Set([1])]]), new Map([["k", new Set([2])]]))).toBe(
      "/k: the Set lacks 1",
    );
    expect(reason({ at: new Date(0) }, { at: new Date(1) })).toBe(
      "/at: observed Date 1970-01-01T00:00:00.001Z, expected Date 1970-01-01T00:00:00.000Z",
    );
  });

  it("keeps a reason short whatever the size of the values and their keys", () => {
    const key = "k".repeat(1_000_000);
    const result = equals({ [key]: "a".repeat(1_000_000) }).evaluate({ [key]: "b" });
    expect(result.reason).toBe(`/${"k".repeat(40)}…: observed "b", expected "${"a".repeat(59)}…`);
    let deep: unknown = 1;
    let other: unknown = 2;
    for (let i = 0; i < 10_000; i++) {
      deep = [deep];
      other = [other];
    }
    const nested = equals(deep).evaluate(other);
    expect(nested.reason.length).toBeLessThan(250);
    expect(nested.reason).toMatch(/^\/0\/0.*….*\/0: observed 2, expected 1$/);
    expect(String(nested.observed).length).toBeLessThan(70);
  });

  it("treats NaN and infinite candidates as unavailable, never as a mismatch", () => {
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expect(equals(1).evaluate(value).state).toBe("unavailable");
      expect(atMost(1).evaluate(value).state).toBe("unavailable");
    }
  });

  it("rejects a non-finite expected number when built", () => {
    expect(() => equals(Number.NaN)).toThrow(AuthoringError);
    expect(() => equals(Number.NaN)).toThrow(/equals\(expected\)/);
  });

  it("takes -0 for 0 and an invalid Date for an invalid Date at any depth, as it does at the top", () => {
    // Math.round(-0.3) is -0: a fact of { hp: -0 } has zero health, as a bare -0 does.
    expect(equals(0).evaluate(Math.round(-0.3)).state).toBe("matched");
    expect(equals({ hp: 0 }).evaluate({ hp: Math.round(-0.3) }).state).toBe("matched");
    expect(equals([0, { hp: -0 }]).evaluate([-0, { hp: 0 }]).state).toBe("matched");
    expect(equals(new Map([["hp", 0]])).evaluate(new Map([["hp", -0]])).state).toBe("matched");
    expect(includes(0).evaluate([-0]).state).toBe("matched");
    expect(includes({ hp: 0 }).evaluate([{ hp: -0 }]).state).toBe("matched");
    expect(
      equals({ at: new Date(Number.NaN) }).evaluate({ at: new Date("not a date") }).state,
    ).toBe("matched");
    expect(equals({ hp: 0 }).evaluate({ hp: 1e-300 })).toMatchObject({ state: "mismatched" });
  });

  it("compares what a RegExp, an Error, a URL, a boxed primitive or an ArrayBuffer holds, not only its keys", () => {
    // Each holds its state where Object.keys does not look: all of them used to be equal.
    const differ: [unknown, unknown][] = [
      [/a/, /b/],
      [/a/g, /a/i],
      [{ e: new Error("timeout") }, { e: new Error("refused") }],
      [new TypeError("x"), new TypeError("x", { cause: 1 })],
      [new URL("https://a.example/"), new URL("https://b.example/")],
      [new URLSearchParams("q=1"), new URLSearchParams("q=2")],
      [{ n: new Number(1) }, { n: new Number(2) }],
      [new String("a"), new String("b")],
      [new Uint8Array([1]).buffer, new Uint8Array([2]).buffer],
      [new DataView(new Uint8Array([1]).buffer), new DataView(new Uint8Array([2]).buffer)],
    ];
    for (const [expected, observed] of differ) {
      expect(equals(expected).evaluate(observed).state).toBe("mismatched");
      expect(equals(expected).evaluate(expected).state).toBe("matched");
    }
    expect(includes(/a/).evaluate([/b/]).state).toBe("mismatched");
    expect(equals({ e: new Error("x") }).evaluate({ e: new Error("x") }).state).toBe("matched");
    expect(equals({ r: /a+/g }).evaluate({ r: /a+/g }).state).toBe("matched");
    expect(equals({ r: /a/ }).evaluate({ r: /b/ }).reason).toBe(
      '/r: observed "/b/", expected "/a/"',
    );
  });

  it("compares cyclic values without overflowing", () => {
    const a: Record<string, unknown> = { name: "x" };
    a.self = a;
    const b: Record<string, unknown> = { name: "x" };
    b.self = b;
    expect(equals<unknown>(a).evaluate(b).state).toBe("matched");
  });
});

describe("numeric comparators", () => {
  it("decide each bound exactly", () => {
    expect(greaterThan(1).evaluate(1).state).toBe("mismatched");
    expect(greaterThan(1).evaluate(1.5).state).toBe("matched");
    expect(lessThan(1).evaluate(1).state).toBe("mismatched");
    expect(atLeast(1).evaluate(1).state).toBe("matched");
    expect(atMost(1).evaluate(1).state).toBe("matched");
    expect(atMost(1).evaluate(2)).toMatchObject({
      state: "mismatched",
      reason: "observed 2, not at most 1",
    });
  });

  it("write the observed number with the digits that tell it from the threshold", () => {
    const reason = (match: { evaluate(v: number): { reason: string } }, value: number) =>
      match.evaluate(value).reason;
    expect(reason(atLeast(0.5), 0.4999999)).toBe("observed 0.4999999, not at least 0.5");
    expect(reason(greaterThan(1), 1.0000001)).toBe("observed 1.0000001, greater than 1");
    expect(reason(atMost(10_000), 10_000.0001)).toBe("observed 10000.0001, not at most 10000");
    expect(reason(atMost(0.3), 0.1 + 0.2)).toBe("observed 0.30000000000000004, not at most 0.3");
    expect(reason(lessThan(1), 1 - 2 ** -53)).toBe("observed 0.9999999999999999, less than 1");
    // Six significant digits where they already tell the two apart.
    expect(reason(atLeast(0.5), 0.123456789)).toBe("observed 0.123457, not at least 0.5");
    expect(reason(atMost(0.5), 0.5)).toBe("observed 0.5, at most 0.5");
  });

  it("cannot judge a non-number: unavailable and marked wrongType, saying what was observed and what they take", () => {
    expect(atLeast(1).evaluate("3" as unknown as number)).toEqual({
      state: "unavailable",
      name: "atLeast",
      expected: "at least 1",
      reason: 'observed "3", but atLeast takes a number',
      observed: "3",
      wrongType: true,
    });
    expect(atMost(5).evaluate(undefined as unknown as number).reason).toBe(
      "observed undefined, but atMost takes a number",
    );
    expect(atLeast(1).test?.(undefined as unknown as number)).toBe("unavailable");
    // `not` cannot turn what could not be judged into a match.
    expect(not(atMost(5)).evaluate(undefined as unknown as number).state).toBe("unavailable");
  });

  it("throw at build time on a NaN or infinite threshold, naming the argument", () => {
    for (const build of [greaterThan, lessThan, atLeast, atMost]) {
      expect(() => build(Number.NaN)).toThrow(/threshold.*finite/);
      expect(() => build(Number.POSITIVE_INFINITY)).toThrow(AuthoringError);
    }
  });

  it("decide ranges only when every value in the range agrees", () => {
    expect(atLeast(1).decideRange?.(1, Number.POSITIVE_INFINITY)).toBe("matched");
    expect(atLeast(5).decideRange?.(0, 4)).toBe("mismatched");
    expect(atLeast(5).decideRange?.(0, 5)).toBe("unavailable");
    expect(atMost(3).decideRange?.(4, Number.POSITIVE_INFINITY)).toBe("mismatched");
    expect(atMost(3).decideRange?.(0, Number.POSITIVE_INFINITY)).toBe("unavailable");
    expect(equals(2).decideRange?.(3, 9)).toBe("mismatched");
    expect(equals(2).decideRange?.(2, 2)).toBe("matched");
  });

  it("are plain inspectable values", () => {
    const match = atMost(10_000);
    expect(match).toMatchObject({
      kind: "match",
      name: "atMost",
      expects: "at most 10000",
      params: { threshold: 10_000 },
    });
    expect(JSON.parse(JSON.stringify(match))).toEqual({
      kind: "match",
      name: "atMost",
      expects: "at most 10000",
      params: { threshold: 10_000 },
    });
  });
});

describe("and / or reasons", () => {
  it("quote what each failing argument found: all of a failed or, every mismatch of a failed and", async () => {
    const { and, or, mapValue } = await import("./index.js");
    const crate = { id: "crate", dur: 0, x: 1 };
    const idIs = mapValue("objectMatch", (o: typeof crate) => o.id, equals("box"));
    const durable = mapValue("durabilityMatch", (o: typeof crate) => o.dur, greaterThan(0));
    const at = mapValue("positionMatch", (o: typeof crate) => o.x, equals(9));
    // Before, a failed `or` said only "2 of 2 mismatched", and `and` quoted its first mismatch.
    expect(or(durable, idIs).evaluate(crate).reason).toBe(
      '2 of 2 mismatched; durabilityMatch: observed 0, not greater than 0; objectMatch: observed "crate", expected "box"',
    );
    expect(and(durable, at).evaluate(crate).reason).toBe(
      "2 of 2 mismatched; durabilityMatch: observed 0, not greater than 0; positionMatch: observed 1, expected 9",
    );
    // Past three, the rest are counted; a passing `or` names the argument that matched.
    expect(or(durable, at, idIs, durable).evaluate(crate).reason).toMatch(
      /^4 of 4 mismatched; durabilityMatch: .*; positionMatch: .*; objectMatch: .*; and 1 more$/,
    );
    expect(
      or(
        durable,
        at,
        mapValue("id", (o: typeof crate) => o.id, equals("crate")),
      ).evaluate(crate).reason,
    ).toBe('1 of 3 matched; id: observed "crate"');
  });
});
