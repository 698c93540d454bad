// The quick check must never call valid what the full validator calls invalid: checked on the
// official JSON-Schema-Test-Suite (every schema it accepts) and on generated schemas and values.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadSuite, type SuiteDraft } from "../../../test/fixtures/json-schema-test-suite/load.mjs";
import type { JsonSchema } from "./json-schema.js";
import { compileUncached } from "./json-schema-engine.js";
import { compileQuickCheck } from "./json-schema-fast.js";

/** `[1, <hole>, 3]`. */
function holey(): unknown[] {
  const array = [1, 2, 3];
  delete array[1];
  return array;
}

describe("compileQuickCheck on the JSON-Schema-Test-Suite", () => {
  for (const draft of ["draft-07", "2020-12"] as SuiteDraft[]) {
    it(`agrees with every required ${draft} test whose schema it takes`, () => {
      let taken = 0;
      let quickValid = 0;
      const disagreements: string[] = [];
      for (const group of loadSuite(draft)) {
        const quick = compileQuickCheck(group.schema);
        if (!quick) continue;
        for (const test of group.tests) {
          taken++;
          const said = quick(test.data);
          if (said) quickValid++;
          // Valid for certain when it says so; and within the keywords it takes, it knows every
          // valid value (a miss would only cost time, but it would say the compiler is wrong).
          if (said !== test.valid)
            disagreements.push(`${group.file}: ${group.description}: ${test.description}`);
        }
      }
      expect(disagreements).toEqual([]);
      // Not vacuous: the suite's plain schemas are many.
      expect(taken).toBeGreaterThan(300);
      expect(quickValid).toBeGreaterThan(150);
    });
  }

  it("takes no schema that uses a keyword outside its set, or another dialect inside it", () => {
    expect(compileQuickCheck({ type: "string", format: "email" })).toBeUndefined();
    expect(compileQuickCheck({ $ref: "#/$defs/a", $defs: { a: true } })).toBeUndefined();
    expect(compileQuickCheck({ items: [{ type: "string" }] })).toBeUndefined();
    expect(compileQuickCheck({ properties: { a: { pattern: "^a" } } })).toBeUndefined();
    expect(
      compileQuickCheck({
        properties: { a: { $schema: "http://json-schema.org/draft-07/schema#" } },
      }),
    ).toBeUndefined();
    expect(compileQuickCheck({ "x-vendor": 1 })).toBeUndefined();
    expect(
      compileQuickCheck({
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "integer",
      }),
    ).toBeDefined();
  });

  it("says nothing for certain of a value that is not JSON", () => {
    const quick = compileQuickCheck({ type: "object" })!;
    expect(quick({ a: 1 })).toBe(true);
    for (const value of [
      { a: Number.NaN },
      { a: undefined },
      { a: () => 1 },
      { a: new Date(0) },
      holey(),
      { a: 1n },
    ])
      expect(quick(value)).toBe(false);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(quick(cyclic)).toBe(false);
  });

  it("reads __proto__ and constructor as property names", () => {
    // Parsed, so "__proto__" is a key of `properties` rather than its prototype.
    const quick = compileQuickCheck(
      JSON.parse(
        '{"required": ["__proto__", "constructor"], "properties": {"__proto__": {"type": "number"}, "constructor": {}}, "additionalProperties": false}',
      ),
    )!;
    expect(quick(JSON.parse('{"__proto__": 1, "constructor": 2}'))).toBe(true);
    expect(quick(JSON.parse('{"__proto__": "1", "constructor": 2}'))).toBe(false);
    expect(quick({})).toBe(false);
    expect(quick({ constructor: 2 })).toBe(false);
  });
});

// ── Generated: plain schemas and JSON values, the quick check against the full validator ──

const leafSchema = fc.oneof(
  fc.constant({}),
  fc.record(
    {
      type: fc.constantFrom("null", "boolean", "string", "number", "integer", "object", "array"),
      minimum: fc.integer({ min: -3, max: 3 }),
      exclusiveMaximum: fc.integer({ min: -3, max: 3 }),
      minLength: fc.nat(3),
      maxLength: fc.nat(3),
      minItems: fc.nat(2),
      uniqueItems: fc.boolean(),
      minProperties: fc.nat(2),
      enum: fc.array(fc.jsonValue({ maxDepth: 1 }), { minLength: 1, maxLength: 3 }),
      const: fc.jsonValue({ maxDepth: 1 }),
    },
    { requiredKeys: [] },
  ),
  fc.boolean(),
);

const schema: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leafSchema,
    fc.record(
      {
        type: fc.constantFrom("object", ["object", "null"]),
        properties: fc.dictionary(
          fc.constantFrom("a", "b", "__proto__", "constructor"),
          tie("node"),
        ),
        required: fc.uniqueArray(fc.constantFrom("a", "b", "constructor")),
        additionalProperties: tie("node"),
        maxProperties: fc.nat(3),
      },
      { requiredKeys: [] },
    ),
    fc.record(
      { type: fc.constant("array"), items: tie("node"), maxItems: fc.nat(3) },
      { requiredKeys: [] },
    ),
  ),
})).node;

const value = fc
  .jsonValue({ maxDepth: 3 })
  .chain((v) =>
    fc.oneof(
      fc.constant(v),
      fc.constant(JSON.parse('{"__proto__": 1, "a": "x"}')),
      fc.constant({ a: [1, 1], b: "ab\u{1F600}" }),
    ),
  );

describe("compileQuickCheck against the full validator", () => {
  it("says valid exactly when the validator does, for generated plain schemas and JSON values", async () => {
    const seen = { valid: 0, invalid: 0 };
    await fc.assert(
      fc.asyncProperty(
        schema,
        fc.array(value, { minLength: 1, maxLength: 5 }),
        async (s, values) => {
          const quick = compileQuickCheck(s);
          // The validator alone, without the quick check in front of it.
          const compiled = await compileUncached(s as JsonSchema, "2020-12", { quick: false });
          // A generated schema the drafts do not allow (exclusiveMaximum below minimum is allowed;
          // none should fail) is no case for the quick check.
          fc.pre(compiled.ok && quick !== undefined);
          if (!compiled.ok || !quick) return;
          for (const v of values) {
            const full = compiled.check(v).outcome === "valid";
            seen[full ? "valid" : "invalid"]++;
            expect(quick(v), JSON.stringify({ schema: s, value: v })).toBe(full);
          }
        },
      ),
      { numRuns: 400 },
    );
    // Both answers came up often: the property was not met by saying one thing.
    expect(seen.valid).toBeGreaterThan(100);
    expect(seen.invalid).toBeGreaterThan(100);
  }, 60_000);
});
