import { type } from "arktype";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AuthoringError } from "../errors.js";
import { regexMatch } from "../scorers/deterministic/regex-match.js";
import { equals } from "./compare.js";
import { isDefined, mapValue, matches, pattern } from "./values.js";

describe("pattern", () => {
  it("matches strings and is stateless with a global regex", () => {
    const match = pattern(/order #\d+/g);
    expect(match.evaluate("order #12").state).toBe("matched");
    expect(match.evaluate("order #12").state).toBe("matched");
    expect(match.evaluate(12 as never)).toMatchObject({
      state: "unavailable",
      reason: "observed 12, but pattern takes a string",
      wrongType: true,
    });
    expect(() => pattern("x" as never)).toThrow(AuthoringError);
  });

  it("anchors a sticky regex at the start, as regex-match does with the flag y", () => {
    expect(pattern(/a/y).evaluate("ba").state).toBe("mismatched");
    expect(pattern(/a/y).evaluate("ab").state).toBe("matched");
    expect(pattern(/a/gy).evaluate("ab").state).toBe("matched");
    expect(regexMatch({ actual: "ba", pattern: "a", flags: "y" }).value).toBe(0);
    expect(regexMatch({ actual: "ab", pattern: "a", flags: "y" }).value).toBe(1);
  });

  it("names a long regex cut, with its size", () => {
    const match = pattern(new RegExp(`${"x".repeat(5_000)}(?=y)`));
    expect(match.expects).toBe(`matches /${"x".repeat(60)}…/ (5005 chars)`);
    expect(() => match.evaluate("x")).toThrow(
      /^pattern\(regex\): pattern \/x{60}…\/ \(5005 chars\) uses a lookahead/,
    );
  });

  it("answers a catastrophic pattern on a long string (linear time, RE2)", () => {
    const long = `${"a".repeat(50_000)}!`;
    expect(pattern(/^(a+)+$/).evaluate(long).state).toBe("mismatched");
    expect(pattern(/^(a|aa)*c$/i).evaluate(`${"A".repeat(50_000)}C`).state).toBe("matched");
  });

  it("keeps the i, m and s flags", () => {
    expect(pattern(/^b$/m).evaluate("a\nb").state).toBe("matched");
    expect(pattern(/^b$/).evaluate("a\nb").state).toBe("mismatched");
    expect(pattern(/a.b/s).evaluate("a\nb").state).toBe("matched");
    expect(pattern(/HELLO/i).evaluate("hello").state).toBe("matched");
  });

  it("throws an AuthoringError naming the construct RE2 cannot run when evaluated", () => {
    const match = pattern(/(a)\1/);
    expect(() => match.evaluate("aa")).toThrow(AuthoringError);
    expect(() => match.evaluate("aa")).toThrow(/backreference.*linear-time engine \(RE2\)/);
    expect(() => pattern(/a(?=b)/).evaluate("ab")).toThrow(/lookahead/);
  });
});

describe("isDefined", () => {
  it("rejects null and undefined", () => {
    expect(isDefined().evaluate(0).state).toBe("matched");
    expect(isDefined().evaluate(null).state).toBe("mismatched");
    expect(isDefined().evaluate(undefined).state).toBe("mismatched");
  });
});

describe("matches (Standard Schema)", () => {
  it("accepts zod and valibot schemas", () => {
    const zod = matches(z.object({ orderId: z.string() }));
    expect(zod.evaluate({ orderId: "A1" }).state).toBe("matched");
    const rejected = zod.evaluate({ orderId: 1 });
    expect(rejected.state).toBe("mismatched");
    expect(rejected.reason).toMatch(/orderId/);
    expect(matches(v.pipe(v.number(), v.minValue(3))).evaluate(2).state).toBe("mismatched");
    expect(zod.expects).toBe("matches zod schema");
  });

  it("names an issue at the root (root) for every library, arktype's callable schemas included", () => {
    for (const schema of [type("number"), z.number(), v.number()]) {
      const result = matches(schema).evaluate("nope");
      expect(result.state).toBe("mismatched");
      expect(result.reason).toMatch(/^1 issue; \(root\): /);
    }
    const nested = matches(type({ order: { id: "string" } })).evaluate({ order: { id: 1 } });
    expect(nested.reason).toMatch(/^1 issue; order\.id: /);
  });

  it("refuses async validation with a clear authoring error", () => {
    const asyncSchema = z.string().refine(async () => true);
    expect(() => matches(asyncSchema).evaluate("x")).toThrow(/asynchronously/);
  });

  it("rejects a non-schema when built", () => {
    expect(() => matches({} as never)).toThrow(/Standard Schema/);
  });
});

describe("mapValue", () => {
  it("names a projection and nests the inner result", () => {
    const actorMatch = (id: string) =>
      mapValue("actorMatch", (s: { actorId: string }) => s.actorId, equals(id));
    const result = actorMatch("agent").evaluate({ actorId: "customer" });
    expect(result).toMatchObject({
      state: "mismatched",
      name: "actorMatch",
      children: [{ name: "equals", observed: "customer" }],
    });
    expect(() => mapValue("", (x: number) => x, equals(1))).toThrow(/non-empty/);
  });
});
