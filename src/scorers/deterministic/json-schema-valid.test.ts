import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { compileJsonSchema, type JsonSchema } from "./json-schema.js";
import { jsonSchemaValid, standardSchemaValid } from "./json-schema-valid.js";

const order = {
  type: "object",
  properties: {
    id: { type: "string" },
    email: { type: "string", format: "email" },
    placedAt: { type: "string", format: "date-time" },
    status: { enum: ["open", "paid", "shipped"] },
    items: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        properties: { sku: { type: "string" }, price: { type: "number", minimum: 0 } },
        required: ["sku", "price"],
        additionalProperties: false,
      },
    },
    payment: {
      oneOf: [
        { type: "object", properties: { card: { type: "string" } }, required: ["card"] },
        { type: "object", properties: { iban: { type: "string" } }, required: ["iban"] },
      ],
    },
  },
  required: ["id", "items"],
} as const satisfies JsonSchema;

const goodOrder = {
  id: "o-1",
  email: "ada@example.com",
  placedAt: "2026-11-30T08:00:00Z",
  status: "paid",
  items: [
    { sku: "a", price: 1 },
    { sku: "b", price: 2.5 },
  ],
  payment: { card: "4242" },
};

const rationaleOf = (actual: unknown, schema: JsonSchema = order) =>
  jsonSchemaValid({ actual, schema }).rationale;

describe("jsonSchemaValid with JSON Schema", () => {
  it("passes a valid value and names the draft", () => {
    expect(jsonSchemaValid({ actual: goodOrder, schema: order })).toEqual({
      value: 1,
      passed: true,
      label: "json-schema-valid",
      rationale: "actual is valid against the JSON Schema (draft 2020-12)",
    });
  });

  it("names a nested violation with its JSON path", () => {
    const actual = { ...goodOrder, items: [...goodOrder.items, { sku: "c", price: "9" }] };
    expect(jsonSchemaValid({ actual, schema: order })).toEqual({
      value: 0,
      passed: false,
      label: "json-schema-valid",
      rationale: "/items/2/price: must be number",
    });
  });

  it("names missing required properties, extra properties and bounds", () => {
    expect(rationaleOf({ items: [] })).toBe("(root): must have required property 'id'");
    expect(rationaleOf({ id: "x", items: [] })).toBe("/items: must NOT have fewer than 1 items");
    expect(rationaleOf({ id: "x", items: [{ sku: "a", price: 1, qty: 2 }] })).toBe(
      '/items/0: must NOT have additional properties ("qty")',
    );
    expect(rationaleOf({ id: "x", items: [{ sku: "a", price: -1 }] })).toBe(
      "/items/0/price: must be >= 0",
    );
  });

  it("lists the allowed values of an enum and a const", () => {
    expect(rationaleOf({ ...goodOrder, status: "lost" })).toBe(
      '/status: must be equal to one of the allowed values: "open", "paid", "shipped"',
    );
    expect(rationaleOf(2, { const: 1 })).toBe("(root): must be equal to constant 1");
  });

  it("checks formats such as email and date-time", () => {
    expect(rationaleOf({ ...goodOrder, email: "not-an-email" })).toBe(
      '/email: must match format "email"',
    );
    expect(rationaleOf({ ...goodOrder, placedAt: "yesterday" })).toBe(
      '/placedAt: must match format "date-time"',
    );
    expect(jsonSchemaValid({ actual: "2026-11-30", schema: { format: "date" } }).passed).toBe(true);
    expect(
      jsonSchemaValid({ actual: "https://a.example/x", schema: { format: "uri" } }).passed,
    ).toBe(true);
  });

  it("explains a failed oneOf with the reason each branch failed", () => {
    expect(rationaleOf({ ...goodOrder, payment: { cash: true } })).toBe(
      "/payment: must match exactly one schema in oneOf (must have required property 'card'; must have required property 'iban')",
    );
    expect(rationaleOf({ ...goodOrder, payment: { card: "1", iban: "2" } })).toBe(
      "/payment: must match exactly one schema in oneOf",
    );
  });

  it("explains anyOf, if/then and unevaluatedProperties failures", () => {
    const nested = {
      properties: {
        a: {
          anyOf: [
            { properties: { b: { type: "string" } } },
            { properties: { b: { type: "boolean" } } },
          ],
        },
      },
    };
    expect(rationaleOf({ a: { b: 1 } }, nested)).toBe(
      "/a: must match a schema in anyOf (/a/b: must be string; /a/b: must be boolean)",
    );
    const conditional = {
      if: { properties: { kind: { const: "card" } } },
      // biome-ignore lint/suspicious/noThenProperty: `then` is a JSON Schema keyword here
      then: { required: ["number"] },
    };
    expect(rationaleOf({ kind: "card" }, conditional)).toBe(
      "(root): must have required property 'number'",
    );
    expect(jsonSchemaValid({ actual: { kind: "cash" }, schema: conditional }).passed).toBe(true);
    expect(rationaleOf({ a: 1 }, { unevaluatedProperties: false })).toBe(
      '(root): must NOT have unevaluated properties ("a")',
    );
  });

  it("follows $defs references", () => {
    const schema = {
      $defs: { money: { type: "number", multipleOf: 0.01 } },
      type: "array",
      items: { $ref: "#/$defs/money" },
    };
    expect(jsonSchemaValid({ actual: [1, 2.5], schema }).passed).toBe(true);
    expect(rationaleOf([1, 2.555], schema)).toBe("/1: must be multiple of 0.01");
  });

  it("reads draft-07 when $schema says so, and 2020-12 otherwise", () => {
    const tuple07 = {
      $schema: "http://json-schema.org/draft-07/schema#",
      items: [{ type: "string" }],
      additionalItems: false,
    };
    expect(jsonSchemaValid({ actual: ["a"], schema: tuple07 }).rationale).toBe(
      "actual is valid against the JSON Schema (draft draft-07)",
    );
    expect(rationaleOf(["a", 1], tuple07)).toBe("(root): must NOT have more than 1 items");
    // The same tuple in 2020-12 is written with prefixItems; array-form items is invalid there.
    expect(rationaleOf(["a", 1], { prefixItems: [{ type: "string" }], items: false })).toBe(
      "(root): must NOT have more than 1 items",
    );
    expect(rationaleOf(["a"], { items: [{ type: "string" }] })).toMatch(/^invalid schema: /);
    const explicit2020 = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "string",
    };
    expect(jsonSchemaValid({ actual: "x", schema: explicit2020 }).passed).toBe(true);
    const draft2019 = { $schema: "https://json-schema.org/draft/2019-09/schema", type: "string" };
    expect(jsonSchemaValid({ actual: "x", schema: draft2019 }).rationale).toContain("2019-09");
  });

  it("accepts boolean schemas", () => {
    expect(jsonSchemaValid({ actual: { any: 1 }, schema: true }).passed).toBe(true);
    expect(jsonSchemaValid({ actual: 1, schema: false })).toMatchObject({
      value: 0,
      rationale: "(root): boolean schema is false",
    });
  });

  it("ignores unknown annotation keywords", () => {
    const schema = { type: "string", example: "x", "x-owner": "team" };
    expect(jsonSchemaValid({ actual: "x", schema }).passed).toBe(true);
  });

  it("fails an invalid schema with 'invalid schema:' and never throws", () => {
    const cases: [unknown, RegExp][] = [
      [{ type: "strnig" }, /^invalid schema: schema is invalid: data\/type/],
      [{ type: "string", format: "emial" }, /^invalid schema: unknown format "emial" in schema/],
      [{ $ref: "#/$defs/missing" }, /^invalid schema: can't resolve reference/],
      [
        { $schema: "http://json-schema.org/draft-04/schema#" },
        /^invalid schema: unsupported \$schema/,
      ],
      [null, /^invalid schema: a JSON Schema is an object or a boolean, got null/],
      [[{ type: "string" }], /^invalid schema: .* got an array/],
      [{ minimum: 1n }, /^invalid schema: not JSON/],
    ];
    for (const [schema, rationale] of cases) {
      const score = jsonSchemaValid({ actual: "x", schema: schema as JsonSchema });
      expect(score).toMatchObject({ value: 0, passed: false, label: "json-schema-valid" });
      expect(score.rationale).toMatch(rationale);
    }
  });

  it("compiles a schema once, finding it again by identity and by content", () => {
    const first = compileJsonSchema({ type: "integer", maximum: 7 });
    const again = compileJsonSchema({ type: "integer", maximum: 7 });
    expect(again).toBe(first);
    const schema = { type: "integer", maximum: 8 };
    expect(compileJsonSchema(schema)).toBe(compileJsonSchema(schema));
  });

  it("lets schemas reuse an $id with different content", () => {
    expect(
      jsonSchemaValid({
        actual: "x",
        schema: { $id: "https://niceeval.dev/t.json", type: "string" },
      }).passed,
    ).toBe(true);
    expect(
      jsonSchemaValid({
        actual: "x",
        schema: { $id: "https://niceeval.dev/t.json", type: "number" },
      }).passed,
    ).toBe(false);
  });

  it("keeps answering correctly past the cache's bound", () => {
    for (let n = 0; n < 400; n++) {
      const schema = { type: "integer", minimum: n };
      expect(jsonSchemaValid({ actual: n, schema }).passed).toBe(true);
      expect(jsonSchemaValid({ actual: n - 1, schema }).passed).toBe(false);
    }
  });
});

describe("jsonSchemaValid with a Standard Schema", () => {
  const zodOrder = z.object({
    id: z.string(),
    items: z.array(z.object({ sku: z.string(), price: z.number() })),
  });
  const valibotOrder = v.object({
    id: v.string(),
    items: v.array(v.object({ sku: v.string(), price: v.number() })),
  });
  const bad = {
    id: "o",
    items: [
      { sku: "a", price: 1 },
      { sku: "b", price: 1 },
      { sku: "c", price: "9" },
    ],
  };

  it("validates with zod synchronously and names the path", () => {
    expect(jsonSchemaValid({ actual: { id: "o", items: [] }, schema: zodOrder })).toEqual({
      value: 1,
      passed: true,
      label: "json-schema-valid",
      rationale: "actual is valid against the schema",
    });
    expect(jsonSchemaValid({ actual: bad, schema: zodOrder })).toEqual({
      value: 0,
      passed: false,
      label: "json-schema-valid",
      rationale: "/items/2/price: Invalid input: expected number, received string",
    });
  });

  it("validates with valibot and names the path", () => {
    const score = jsonSchemaValid({ actual: bad, schema: valibotOrder });
    expect(score).toMatchObject({ value: 0, passed: false });
    expect((score as { rationale: string }).rationale).toMatch(/^\/items\/2\/price: Invalid type/);
    expect(jsonSchemaValid({ actual: { id: "o", items: [] }, schema: valibotOrder })).toMatchObject(
      {
        passed: true,
      },
    );
  });

  it("returns a Promise when the schema validates asynchronously", async () => {
    const slow = z.string().refine(async (text) => text.startsWith("ok"), "must start with ok");
    const pending = jsonSchemaValid({ actual: "nope", schema: slow });
    expect(pending).toBeInstanceOf(Promise);
    expect(await pending).toMatchObject({ value: 0, rationale: "(root): must start with ok" });
    expect(await standardSchemaValid({ actual: "ok!", schema: slow })).toMatchObject({ value: 1 });
  });

  it("standardSchemaValid always answers with a Promise", async () => {
    const result = standardSchemaValid({ actual: 3, schema: z.string() });
    expect(result).toBeInstanceOf(Promise);
    expect(await result).toMatchObject({
      passed: false,
      rationale: "(root): Invalid input: expected string, received number",
    });
    const notSchema = { type: "string" } as unknown as Parameters<
      typeof standardSchemaValid
    >[0]["schema"];
    expect(await standardSchemaValid({ actual: "x", schema: notSchema })).toMatchObject({
      passed: false,
      rationale: expect.stringMatching(/^invalid schema: not a Standard Schema/),
    });
  });

  it("escapes JSON Pointer characters in issue paths", () => {
    const schema = z.object({ "a/b": z.object({ "c~d": z.number() }) });
    expect(jsonSchemaValid({ actual: { "a/b": { "c~d": "x" } }, schema })).toMatchObject({
      rationale: "/a~1b/c~0d: Invalid input: expected number, received string",
    });
  });

  it("fails, not throws, when a schema's validate throws", async () => {
    const throwing = {
      "~standard": {
        version: 1 as const,
        vendor: "test",
        validate: () => {
          throw new Error("boom");
        },
      },
    };
    expect(jsonSchemaValid({ actual: 1, schema: throwing })).toMatchObject({
      passed: false,
      rationale: "invalid schema: its validate threw: boom",
    });
    const rejecting = {
      "~standard": {
        version: 1 as const,
        vendor: "test",
        validate: () => Promise.reject(new Error("late")),
      },
    };
    expect(await jsonSchemaValid({ actual: 1, schema: rejecting })).toMatchObject({
      passed: false,
      rationale: "invalid schema: its validate threw: late",
    });
  });
});
