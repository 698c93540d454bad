import { type } from "arktype";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runTool } from "../../tool/run-tool.js";
import { compileJsonSchema, type JsonSchema } from "./json-schema.js";
import {
  type JsonSchemaValidInput,
  jsonSchemaValid,
  jsonSchemaValidTool,
  standardSchemaValid,
} from "./json-schema-valid.js";
import { evalScorersProvider } from "./provider.js";

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

const rationaleOf = async (actual: unknown, schema: unknown = order, options = {}) =>
  (await jsonSchemaValid({ actual, schema: schema as JsonSchema, ...options })).rationale;

const candidates = [evalScorersProvider];
const viaTool = (input: JsonSchemaValidInput) =>
  runTool({ tool: jsonSchemaValidTool, candidates, input: input as never });

describe("jsonSchemaValid with JSON Schema", () => {
  it("passes a valid value and names the draft", async () => {
    expect(await jsonSchemaValid({ actual: goodOrder, schema: order })).toEqual({
      value: 1,
      passed: true,
      label: "json-schema-valid",
      rationale: "actual is valid against the JSON Schema (draft 2020-12)",
    });
  });

  it("names a nested violation with its path, what was expected and what was found", async () => {
    const actual = { ...goodOrder, items: [...goodOrder.items, { sku: "c", price: "9" }] };
    expect(await jsonSchemaValid({ actual, schema: order })).toEqual({
      value: 0,
      passed: false,
      label: "json-schema-valid",
      rationale: "/items/2/price: must be number, got string",
    });
  });

  it("names missing required properties, extra properties and bounds", async () => {
    expect(await rationaleOf({ items: [{ sku: "a", price: 1 }] })).toBe(
      "(root): must have required property 'id'",
    );
    expect(await rationaleOf({ id: "x", items: [] })).toBe(
      "/items: must NOT have fewer than 1 items, got 0",
    );
    expect(await rationaleOf({ id: "x", items: [{ sku: "a", price: 1, qty: 2 }] })).toBe(
      '/items/0: must NOT have additional properties ("qty")',
    );
    expect(await rationaleOf({ id: "x", items: [{ sku: "a", price: -1 }] })).toBe(
      "/items/0/price: must be >= 0, got -1",
    );
  });

  it("names the duplicate items of uniqueItems, and counts contains in words", async () => {
    const unique = { uniqueItems: true };
    expect(await rationaleOf([1, 2, 1.0], unique)).toBe(
      "(root): must NOT have duplicate items (items 0 and 2 are equal)",
    );
    expect(await rationaleOf(["x", { a: 1, b: [2] }, { b: [2], a: 1 }], unique)).toBe(
      "(root): must NOT have duplicate items (items 1 and 2 are equal)",
    );
    expect(await rationaleOf([1, "a"], { contains: { type: "string" }, minContains: 2 })).toBe(
      "(root): must contain at least 2 items valid against contains",
    );
    expect(await rationaleOf([1], { contains: { type: "string" } })).toBe(
      "(root): must contain at least 1 item valid against contains",
    );
    expect(await rationaleOf(["a", "b"], { contains: { type: "string" }, maxContains: 1 })).toBe(
      "(root): must contain at least 1 and at most 1 item valid against contains",
    );
  });

  it("cuts property names of 2 MB in the path and in the required ones, and lists five", async () => {
    const big = "k".repeat(2_000_000);
    const cut = `${"k".repeat(40)}…`;
    const nested = { type: "object", additionalProperties: { type: "number" } };
    expect(await rationaleOf({ [big]: "x" }, nested)).toBe(`/${cut}: must be number, got string`);
    const required = ["a", "b", "c", "d", "e", "f"].map((name) => `${name}${big}`);
    expect(await rationaleOf({}, { required })).toBe(
      `(root): must have required properties ${["a", "b", "c", "d", "e"].map((name) => `'${name}${"k".repeat(39)}…'`).join(", ")}, …`,
    );
  });

  it("counts string lengths in code points, and answers at once for a 50 MB string", async () => {
    // One emoji is one code point (two UTF-16 units); a lone surrogate counts as one.
    const short = await jsonSchemaValid({ actual: "😀😀", schema: { maxLength: 2 } });
    expect(short.passed).toBe(true);
    const long = await jsonSchemaValid({ actual: "😀😀\uD800", schema: { maxLength: 2 } });
    expect(long.rationale).toBe("(root): must NOT have more than 2 characters, got 3");
    const min = await jsonSchemaValid({ actual: "😀", schema: { minLength: 2 } });
    expect(min.rationale).toBe("(root): must NOT have fewer than 2 characters, got 1");
    // Spreading 50,000,000 characters into an array took minutes; a preview of an enum's found
    // value is 60 characters, not the whole value.
    const huge = "a".repeat(50_000_000);
    const capped = await jsonSchemaValid({ actual: huge, schema: { maxLength: 10 } });
    expect(capped.rationale).toBe("(root): must NOT have more than 10 characters, got 50000000");
    const listed = await jsonSchemaValid({ actual: huge, schema: { enum: ["a"] } });
    expect(listed.rationale).toBe(
      `(root): must be equal to one of the allowed values: "a", got "${"a".repeat(59)}…`,
    );
  });

  it("runs pattern and patternProperties in linear time, and errors a pattern RE2 cannot run", async () => {
    // Backtracking took about 4× longer per 2 more characters; 40 never returned.
    const nested = "^(a+)+$";
    const slow = `${"a".repeat(40)}!`;
    const pattern = await jsonSchemaValid({ actual: slow, schema: { pattern: nested } });
    expect(pattern.rationale).toBe(`(root): must match pattern "${nested}", got "${slow}"`);
    const keys = await jsonSchemaValid({
      actual: { [slow]: 1, aaa: "x" },
      schema: { patternProperties: { [nested]: { type: "number" } } },
    });
    expect(keys.rationale).toBe("/aaa: must be number, got string");
    // Unicode properties by their long names, as JavaScript writes them.
    const letters = await jsonSchemaValid({
      actual: "héllo",
      schema: { pattern: "^\\p{Letter}+$" },
    });
    expect(letters.passed).toBe(true);
    const lookahead = await jsonSchemaValid({ actual: "a", schema: { pattern: "^(?=a)" } });
    expect(lookahead.errored).toBe(true);
    expect(lookahead.rationale).toContain("linear-time engine (RE2) cannot run");
  });

  it("fails numbers JSON cannot write and empty array slots, naming where they are", async () => {
    const cases: [unknown, JsonSchema, string][] = [
      [Number.NaN, { type: "number" }, "(root): must be a JSON value, got NaN"],
      [
        { a: Infinity },
        { properties: { a: { type: "number" } } },
        "/a: must be a JSON value, got Infinity",
      ],
      // biome-ignore lint/suspicious/noSparseArray: the hole is the case
      [[1, , 3], { type: "array" }, "/1: must be a JSON value, got an empty array slot"],
    ];
    for (const [actual, schema, rationale] of cases) {
      const result = await jsonSchemaValid({ actual, schema });
      expect(result).toMatchObject({ passed: false, rationale });
      expect(result.errored).toBeUndefined();
    }
  });

  it("errors a value nested too deep for the validator, saying how deep, not a RangeError", async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    for (const schema of [{ type: "array" }, { $defs: { n: {} }, items: { $ref: "#" } }]) {
      const score = await jsonSchemaValid({ actual: deep, schema });
      if (score.errored) {
        expect(score).toMatchObject({ value: 0, passed: false, errored: true });
        expect(score.rationale).toBe(
          "actual is nested 100000 levels deep, too deep for the validator (it ran out of stack): validate a shallower value or a part of it",
        );
      } else expect(score.passed).toBe(true);
    }
    const recursive = await jsonSchemaValid({ actual: deep, schema: { items: { $ref: "#" } } });
    expect(recursive.rationale).toMatch(/^actual is nested 100000 levels deep/);
  });

  it("errors a formats option it does not know instead of turning format checks off", async () => {
    const result = await jsonSchemaValid({
      actual: "x",
      schema: { format: "email" },
      formats: "annotat" as "annotate",
    });
    expect(result).toMatchObject({
      errored: true,
      rationale:
        'invalid option: formats must be "assert" (the default) or "annotate", got "annotat"',
    });
  });

  it("errors a misspelt option key instead of reading the schema without it", async () => {
    const result = await jsonSchemaValid({
      actual: 1,
      schema: { type: "number" },
      draf: "draft-07",
    } as never);
    expect(result).toMatchObject({
      errored: true,
      rationale:
        'invalid input: unknown key "draf" (did you mean "draft"?); known keys: actual, schema, draft, formats, parseJson',
    });
  });

  it("errors an input that is not an object, saying what it takes", async () => {
    for (const [input, got] of [
      [undefined, "undefined"],
      [null, "null"],
      ["{}", "a string"],
    ] as const) {
      expect(await jsonSchemaValid(input as never)).toMatchObject({
        errored: true,
        rationale: `invalid input: jsonSchemaValid takes { actual, schema, draft?, formats?, parseJson? }, got ${got}`,
      });
      expect(await standardSchemaValid(input as never)).toMatchObject({
        errored: true,
        rationale: `invalid input: standardSchemaValid takes { actual, schema }, got ${got}`,
      });
    }
  });

  it("checks required names that are also Object.prototype's, such as __proto__", async () => {
    const schema = { required: ["__proto__", "constructor"] };
    expect(await rationaleOf({ id: 1 }, schema)).toBe(
      "(root): must have required properties '__proto__', 'constructor'",
    );
    expect(await rationaleOf(JSON.parse('{"constructor": 1}'), schema)).toBe(
      "(root): must have required property '__proto__'",
    );
    const both = JSON.parse('{"__proto__": 1, "constructor": 2}');
    expect((await jsonSchemaValid({ actual: both, schema })).passed).toBe(true);
  });

  it("lists the allowed values of an enum and a const, with the value found", async () => {
    expect(await rationaleOf({ ...goodOrder, status: "lost" })).toBe(
      '/status: must be equal to one of the allowed values: "open", "paid", "shipped", got "lost"',
    );
    expect(await rationaleOf(2, { const: 1 })).toBe("(root): must be equal to constant 1, got 2");
  });

  it("asserts the standard formats by default, the internationalised ones included", async () => {
    expect(await rationaleOf({ ...goodOrder, email: "not-an-email" })).toBe(
      '/email: must match format "email", got "not-an-email"',
    );
    expect(await rationaleOf({ ...goodOrder, placedAt: "yesterday" })).toBe(
      '/placedAt: must match format "date-time", got "yesterday"',
    );
    const cases: [string, string, boolean][] = [
      ["idn-email", "실례@실례.테스트", true],
      ["idn-email", "2962", false],
      ["idn-hostname", "실례.테스트", true],
      ["idn-hostname", "〮실례.테스트", false],
      ["iri", "http://ƒøø.ßår/?∂éœ=πîx#πîüx", true],
      ["iri", "/abc", false],
      ["iri-reference", "//ƒøø.ßår/?∂éœ=πîx#πîüx", true],
      ["iri-reference", "\\\\WINDOWS\\filëßåré", false],
      ["date", "2026-11-30", true],
      ["uri", "https://a.example/x", true],
      ["hostname", "-a-.example", false],
    ];
    for (const [format, actual, valid] of cases) {
      const score = await jsonSchemaValid({ actual, schema: { format } });
      expect({ format, actual, passed: score.passed }).toEqual({ format, actual, passed: valid });
    }
  });

  it("prints nothing while checking hostnames", async () => {
    const log = console.log;
    const printed: unknown[] = [];
    console.log = (...args: unknown[]) => printed.push(args);
    try {
      await jsonSchemaValid({ actual: "〮실례.테스트", schema: { format: "idn-hostname" } });
    } finally {
      console.log = log;
    }
    expect(printed).toEqual([]);
  });

  it("only annotates formats when asked to", async () => {
    const schema = { type: "string", format: "email" };
    expect((await jsonSchemaValid({ actual: "nope", schema, formats: "annotate" })).passed).toBe(
      true,
    );
    expect((await jsonSchemaValid({ actual: 3, schema, formats: "annotate" })).passed).toBe(false);
  });

  it("passes an unknown format, saying it was not checked", async () => {
    expect(await rationaleOf("x", { type: "string", format: "emial" })).toBe(
      'actual is valid against the JSON Schema (draft 2020-12); format "emial" is not one draft 2020-12 defines, so it was not checked',
    );
  });

  it("says a format the schema's draft does not define was not checked, though a later draft defines it", async () => {
    const schema = { $schema: "http://json-schema.org/draft-07/schema#", format: "duration" };
    expect(await rationaleOf("1D", schema)).toBe(
      'actual is valid against the JSON Schema (draft-07); format "duration" is not one draft-07 defines, so it was not checked',
    );
    expect(await rationaleOf("1D", { format: "duration" })).toBe(
      '(root): must match format "duration", got "1D"',
    );
  });

  it("explains a failed oneOf with the reason each branch failed", async () => {
    expect(await rationaleOf({ ...goodOrder, payment: { cash: true } })).toBe(
      "/payment: must match exactly one schema in oneOf (must have required property 'card'; must have required property 'iban')",
    );
    expect(await rationaleOf({ ...goodOrder, payment: { card: "1", iban: "2" } })).toBe(
      "/payment: must match exactly one schema in oneOf, but matches 2 of its 2 (oneOf/0 and oneOf/1)",
    );
  });

  it("says which oneOf branches a value matches when it matches more than one", async () => {
    // The branch that failed is not why: the value matches two others.
    const numbers = { oneOf: [{ type: "string" }, { type: "number" }, { type: "integer" }] };
    expect(await rationaleOf(5, numbers)).toBe(
      "(root): must match exactly one schema in oneOf, but matches 2 of its 3 (oneOf/1 and oneOf/2)",
    );
    const viaRefs = {
      $defs: { small: { maximum: 10 }, odd: { not: { multipleOf: 2 } } },
      properties: {
        n: { oneOf: [{ $ref: "#/$defs/small" }, { $ref: "#/$defs/odd" }, { type: "string" }] },
      },
    };
    expect(await rationaleOf({ n: 3 }, viaRefs)).toBe(
      "/n: must match exactly one schema in oneOf, but matches 2 of its 3 (oneOf/0 and oneOf/1)",
    );
    expect(await rationaleOf({ n: 12 }, viaRefs)).toBe(
      "/n: must match exactly one schema in oneOf (must be <= 10, got 12; must NOT be valid against the schema in not; must be string, got integer)",
    );
  });

  it("explains anyOf, if/then, propertyNames and unevaluatedProperties failures", async () => {
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
    expect(await rationaleOf({ a: { b: 1 } }, nested)).toBe(
      "/a: must match a schema in anyOf (/a/b: must be string, got integer; /a/b: must be boolean, got integer)",
    );
    const conditional = {
      if: { properties: { kind: { const: "card" } } },
      // biome-ignore lint/suspicious/noThenProperty: `then` is a JSON Schema keyword here
      then: { required: ["number"] },
    };
    expect(await rationaleOf({ kind: "card" }, conditional)).toBe(
      "(root): must have required property 'number'",
    );
    expect((await jsonSchemaValid({ actual: { kind: "cash" }, schema: conditional })).passed).toBe(
      true,
    );
    expect(
      await rationaleOf(
        { a: { abc: 1 } },
        { properties: { a: { propertyNames: { maxLength: 2 } } } },
      ),
    ).toBe('/a: property name "abc" must NOT have more than 2 characters, got 3');
    expect(await rationaleOf({ a: 1 }, { unevaluatedProperties: false })).toBe(
      '(root): must NOT have unevaluated properties ("a")',
    );
  });

  it("follows $defs, relative and $dynamicRef references", async () => {
    const schema = {
      $defs: { money: { type: "number", multipleOf: 0.01 } },
      type: "array",
      items: { $ref: "#/$defs/money" },
    };
    expect((await jsonSchemaValid({ actual: [1, 2.5], schema })).passed).toBe(true);
    expect(await rationaleOf([1, 2.555], schema)).toBe("/1: must be multiple of 0.01, got 2.555");
    const relative = {
      $id: "https://example.com/tree",
      $defs: { leaf: { $id: "leaf", type: "string" } },
      items: { $ref: "leaf" },
    };
    expect(await rationaleOf(["a", 2], relative)).toBe("/1: must be string, got integer");
    const dynamic = {
      $id: "https://example.com/strict-list",
      $ref: "list",
      $defs: {
        item: { $dynamicAnchor: "item", type: "string" },
        list: {
          $id: "list",
          type: "array",
          items: { $dynamicRef: "#item" },
          $defs: { item: { $dynamicAnchor: "item" } },
        },
      },
    };
    expect(await viaTool({ actual: ["a", "b"], schema: dynamic })).toMatchObject({ passed: true });
    expect(await viaTool({ actual: ["a", 1], schema: dynamic })).toMatchObject({
      passed: false,
      rationale: "/1: must be string, got integer",
    });
  });

  it("reads a schema without $schema as 2020-12, or as the draft option says", async () => {
    const tuple = { items: [{ type: "string" }], additionalItems: false };
    const as07 = { actual: ["a"], schema: tuple, draft: "draft-07" } as const;
    expect((await jsonSchemaValid(as07)).rationale).toBe(
      "actual is valid against the JSON Schema (draft-07)",
    );
    expect(await rationaleOf(["a", 1], tuple, { draft: "draft-07" })).toBe(
      "(root): must NOT have more than 1 items",
    );
    // In 2020-12 a tuple is written with prefixItems; an array-form items is an invalid schema.
    expect(await rationaleOf(["a", 1], { prefixItems: [{ type: "string" }], items: false })).toBe(
      "(root): must NOT have more than 1 items",
    );
    expect(await jsonSchemaValid({ actual: ["a"], schema: tuple })).toMatchObject({
      errored: true,
      rationale: expect.stringMatching(/^invalid schema: \/items is \[/),
    });
    // $schema wins over the option.
    const explicit07 = { $schema: "http://json-schema.org/draft-07/schema#", ...tuple };
    expect((await jsonSchemaValid({ actual: ["a"], schema: explicit07 })).rationale).toContain(
      "draft-07",
    );
    const draft2019 = { $schema: "https://json-schema.org/draft/2019-09/schema", type: "string" };
    expect((await jsonSchemaValid({ actual: "x", schema: draft2019 })).rationale).toContain(
      "2019-09",
    );
  });

  it("accepts boolean schemas", async () => {
    expect((await jsonSchemaValid({ actual: { any: 1 }, schema: true })).passed).toBe(true);
    expect(await jsonSchemaValid({ actual: 1, schema: false })).toMatchObject({
      value: 0,
      rationale: "(root): boolean schema is false",
    });
  });

  it("ignores unknown annotation keywords", async () => {
    const schema = { type: "string", example: "x", "x-owner": "team" };
    expect((await jsonSchemaValid({ actual: "x", schema })).passed).toBe(true);
  });

  it("fails a value that is not JSON, reading undefined properties as absent", async () => {
    expect(await rationaleOf(undefined, { type: "object" })).toBe(
      "(root): must be a JSON value, got undefined",
    );
    expect(await rationaleOf({ a: 1n }, { type: "object" })).toBe(
      "/a: must be a JSON value, got bigint",
    );
    const optional = { properties: { a: { type: "string" } }, required: ["b"] };
    expect(await rationaleOf({ a: undefined, b: 1 }, optional)).toBe(
      "actual is valid against the JSON Schema (draft 2020-12)",
    );
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(await rationaleOf(cyclic, { type: "object" })).toBe(
      "/self: must be a JSON value, got a circular reference",
    );
  });

  it("compiles a schema once, finding it again by identity and by content", async () => {
    const first = await compileJsonSchema({ type: "integer", maximum: 7 });
    const again = await compileJsonSchema({ type: "integer", maximum: 7 });
    expect(again).toBe(first);
    const schema = { type: "integer", maximum: 8 };
    expect(await compileJsonSchema(schema)).toBe(await compileJsonSchema(schema));
    expect(await compileJsonSchema(schema, { draft: "draft-07" })).not.toBe(
      await compileJsonSchema(schema),
    );
  });

  it("lets schemas share an $id with different content, even compiled at once", async () => {
    const id = "https://niceeval.dev/t.json";
    const [text, number] = await Promise.all([
      jsonSchemaValid({ actual: "x", schema: { $id: id, type: "string" } }),
      jsonSchemaValid({ actual: "x", schema: { $id: id, type: "number" } }),
    ]);
    expect(text?.passed).toBe(true);
    expect(number?.passed).toBe(false);
  });

  it("keeps answering correctly past the cache's bound", async () => {
    for (let n = 0; n < 300; n++) {
      const schema = { type: "integer", minimum: n };
      expect((await jsonSchemaValid({ actual: n, schema })).passed).toBe(true);
      expect((await jsonSchemaValid({ actual: n - 1, schema })).passed).toBe(false);
    }
  });
});

describe("jsonSchemaValid with parseJson: a model's JSON text (promptfoo's is-json)", () => {
  const answer = { type: "object", required: ["answer"] };

  it("parses the text, then validates it, directly and through the tool", async () => {
    const good = { actual: '{"answer": "q0"}', schema: answer, parseJson: true };
    expect(await jsonSchemaValid(good)).toMatchObject({ value: 1, passed: true });
    await expect(viaTool(good)).resolves.toMatchObject({ value: 1, passed: true });
    expect(await rationaleOf('{"id": 1}', answer, { parseJson: true })).toBe(
      "(root): must have required property 'answer'",
    );
    expect(
      await rationaleOf('{"answer": 1}', z.object({ answer: z.string() }), { parseJson: true }),
    ).toBe("/answer: Invalid input: expected string, received number");
    expect((await jsonSchemaValid({ actual: "[1]", schema: true, parseJson: true })).passed).toBe(
      true,
    );
  });

  it("fails text that is not JSON, saying where it breaks, and does not error it", async () => {
    const chatty = {
      actual: 'Sure! Here is the JSON: {"answer": "q0"}',
      schema: answer,
      parseJson: true,
    };
    const expected = {
      value: 0,
      passed: false,
      label: "json-schema-valid",
      rationale:
        'actual is not JSON: at line 1, column 1 (found "S"), wanted a JSON value: "Sure! Here is the JS…"',
    };
    expect(await jsonSchemaValid(chatty)).toEqual(expected);
    await expect(viaTool(chatty)).resolves.toEqual(expected);
  });

  it("errors an actual that is not text, and an option that is not a boolean", async () => {
    expect(
      await jsonSchemaValid({ actual: { answer: 1 }, schema: answer, parseJson: true }),
    ).toMatchObject({
      errored: true,
      rationale:
        "invalid input: parseJson: true takes actual as JSON text (a string), got object; leave parseJson out to validate the value as it is",
    });
    const notBoolean = {
      actual: "{}",
      schema: answer,
      parseJson: "yes",
    } as unknown as JsonSchemaValidInput;
    expect((await jsonSchemaValid(notBoolean)).rationale).toBe(
      'invalid option: parseJson must be true or false, got "yes"',
    );
    await expect(viaTool(notBoolean)).rejects.toThrow(/parseJson/);
    expect(
      (await jsonSchemaValid({ actual: "{}", schema: answer, parseJSON: true } as never)).rationale,
    ).toMatch(/^invalid input: unknown key "parseJSON" \(did you mean "parseJson"\?\)/);
  });

  it("says to parse a string holding JSON text when parseJson was left out", async () => {
    expect(await rationaleOf('{"answer": 1}', answer)).toBe(
      "(root): must be object, got string; actual is a string holding JSON text: pass parseJson: true to parse it first",
    );
    const compiled = { type: "object" };
    await jsonSchemaValid({ actual: {}, schema: compiled });
    expect((await viaTool({ actual: " [1]", schema: compiled })).rationale).toMatch(
      /pass parseJson: true/,
    );
    expect(await rationaleOf("Sure!", answer)).toBe("(root): must be object, got string");
    expect(await rationaleOf(JSON.stringify('{"answer": 1}'), answer, { parseJson: true })).toBe(
      "(root): must be object, got string",
    );
  });
});

describe("an invalid IRI or regular expression in a schema is named where it is written", () => {
  const cases: [string, unknown, string][] = [
    ["a root $id", { $id: "::::" }, '/$id is "::::", which is not a valid IRI reference'],
    [
      "a nested $id",
      { properties: { a: { $id: "http://[bad" } } },
      '/properties/a/$id is "http://[bad", which is not a valid IRI reference',
    ],
    [
      "a $ref",
      { properties: { a: { $ref: "#/%%%" } } },
      '/properties/a/$ref is "#/%%%", which is not a valid IRI reference',
    ],
    [
      "a pattern",
      { properties: { p: { pattern: "(" } } },
      '/properties/p/pattern is "(", which is not a valid regular expression (Unterminated group)',
    ],
    [
      "a patternProperties key",
      { patternProperties: { "a/[": {} } },
      '/patternProperties/a~1[ is "a/[", which is not a valid regular expression (Unterminated character class)',
    ],
  ];
  it.each(cases)("%s", async (_what, schema, reason) => {
    const score = await jsonSchemaValid({ actual: {}, schema: schema as JsonSchema });
    expect(score).toMatchObject({ errored: true, rationale: `invalid schema: ${reason}` });
  });

  it("names draft-07 once when a schema breaks its meta-schema", async () => {
    const schema = { $schema: "http://json-schema.org/draft-07/schema#", type: "strnig" };
    expect(await rationaleOf(1, schema)).toBe(
      'invalid schema: /type is "strnig", which the draft-07 meta-schema does not allow (anyOf)',
    );
  });
});

describe("an unusable JSON Schema is an errored score, never a throw nor the value's failure", () => {
  const selfReferencing: Record<string, unknown> = { type: "object" };
  selfReferencing.properties = { child: selfReferencing };
  let tooDeep: Record<string, unknown> = { type: "string" };
  for (let level = 0; level < 20_000; level++) tooDeep = { items: tooDeep };
  const cases: [string, unknown, RegExp][] = [
    [
      "a misspelt type",
      { type: "strnig" },
      /^invalid schema: \/type is "strnig", which the draft 2020-12 meta-schema does not allow/,
    ],
    ["a missing $defs entry", { $ref: "#/$defs/missing" }, /^invalid schema: /],
    [
      "a reference to another document",
      { $ref: "https://schemas.example/other.json" },
      /^invalid schema: reference "https:\/\/schemas.example\/other.json" points to https:\/\/schemas.example\/other.json, outside the schema; niceeval does not fetch schemas/,
    ],
    [
      "a relative reference to a file beside it",
      { $ref: "other.json" },
      /^invalid schema: reference "other.json" points to a document beside the schema/,
    ],
    [
      "an unsupported $schema",
      { $schema: "http://json-schema.org/draft-04/schema#" },
      /^invalid schema: unsupported \$schema/,
    ],
    ["a file: $id", { $id: "file:///etc/schema.json", type: "string" }, /^invalid schema: .*file:/],
    ["null", null, /^invalid schema: a JSON Schema is an object or a boolean, got null/],
    ["an array", [{ type: "string" }], /^invalid schema: .* got an array/],
    ["a bigint", { minimum: 1n }, /^invalid schema: not JSON: \/minimum is a bigint$/],
    [
      "a self-referencing object",
      selfReferencing,
      /^invalid schema: not JSON: \/properties\/child is a circular reference; write the recursion as a reference, such as \{ "\$ref": "#" \}$/,
    ],
    [
      "a schema nested too deep to read",
      tooDeep,
      /^invalid schema: it is nested 20001 levels deep, too deep to read \(it ran out of stack\); write a repeated shape once under \$defs and refer to it with \$ref$/,
    ],
  ];
  for (const [what, schema, rationale] of cases) {
    it(`answers ${what}`, async () => {
      const direct = await jsonSchemaValid({ actual: "x", schema: schema as JsonSchema });
      expect(direct).toMatchObject({
        value: 0,
        passed: false,
        errored: true,
        label: "json-schema-valid",
      });
      expect(direct.rationale).toMatch(rationale);
      await expect(viaTool({ actual: "x", schema: schema as JsonSchema })).resolves.toEqual(direct);
    });
  }

  it("answers a schema whose references loop forever with the loop, not a stack overflow", async () => {
    const loops: [unknown, string][] = [
      [{ $ref: "#" }, "# → #"],
      [{ allOf: [{ type: "object" }, { $ref: "#" }] }, "# → #"],
      [
        { $defs: { a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/a" } }, $ref: "#/$defs/a" },
        "#/$defs/a → #/$defs/b → #/$defs/a",
      ],
      [
        { $defs: { a: { anyOf: [{ type: "string" }, { $ref: "#/$defs/a" }] } }, $ref: "#/$defs/a" },
        "#/$defs/a → #/$defs/a",
      ],
      [
        { $defs: { a: { $anchor: "A", not: { $ref: "#A" } } }, $ref: "#A" },
        "#/$defs/a → #/$defs/a",
      ],
      [
        {
          $schema: "http://json-schema.org/draft-07/schema#",
          definitions: { a: { $ref: "#/definitions/b" }, b: { $ref: "#/definitions/a" } },
          $ref: "#/definitions/a",
        },
        "#/definitions/a → #/definitions/b → #/definitions/a",
      ],
    ];
    for (const [schema, chain] of loops) {
      for (const actual of [{ a: 1 }, "x", 1]) {
        const score = await jsonSchemaValid({ actual, schema: schema as JsonSchema });
        expect(score).toMatchObject({ value: 0, passed: false, errored: true });
        expect(score.rationale).toBe(
          `invalid schema: its references loop without going into the value (${chain}), so validating would never end: make the loop pass through a keyword that goes into the value (properties, items, …) or remove it`,
        );
      }
    }
  });

  it("validates a schema whose references come back only deeper in the value", async () => {
    const tree = {
      $defs: {
        node: { type: "object", properties: { kids: { items: { $ref: "#/$defs/node" } } } },
      },
      allOf: [{ $ref: "#/$defs/node" }],
    };
    expect((await jsonSchemaValid({ actual: { kids: [{ kids: [] }] }, schema: tree })).passed).toBe(
      true,
    );
    expect(await rationaleOf({ kids: [{ kids: [1] }] }, tree)).toBe(
      "/kids/0/kids/0: must be object, got integer",
    );
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
  const arktypeOrder = type({
    id: "string",
    items: type({ sku: "string", price: "number" }).array(),
  });
  const bad = {
    id: "o",
    items: [
      { sku: "a", price: 1 },
      { sku: "b", price: 1 },
      { sku: "c", price: "9" },
    ],
  };

  it("validates with zod and names the path", async () => {
    expect(await jsonSchemaValid({ actual: { id: "o", items: [] }, schema: zodOrder })).toEqual({
      value: 1,
      passed: true,
      label: "json-schema-valid",
      rationale: "actual is valid against the schema",
    });
    expect(await jsonSchemaValid({ actual: bad, schema: zodOrder })).toEqual({
      value: 0,
      passed: false,
      label: "json-schema-valid",
      rationale: "/items/2/price: Invalid input: expected number, received string",
    });
  });

  it("reads zod's JSON Schema output as the JSON Schema it is, not through the zod schema behind it", async () => {
    // z.toJSONSchema gives a plain object that also carries the zod schema's "~standard".
    const named = z.object({ name: z.string().max(5) });
    const schema = z.toJSONSchema(named);
    expect(Object.keys(schema)).not.toContain("~standard");
    expect(await rationaleOf({ name: "a" }, schema)).toBe(
      "actual is valid against the JSON Schema (draft 2020-12)",
    );
    // An edit to the document counts, as it would for any JSON Schema.
    const edited = z.toJSONSchema(named) as unknown as {
      properties: { name: { maxLength: number } };
    };
    edited.properties.name.maxLength = 2;
    expect(await rationaleOf({ name: "abc" }, edited)).toBe(
      "/name: must NOT have more than 2 characters, got 3",
    );
    // So do the options of a JSON Schema.
    const dated = z.toJSONSchema(z.object({ day: z.iso.date() })) as unknown as {
      properties: { day: { pattern?: string } };
    };
    delete dated.properties.day.pattern;
    const day = { day: "2024-02-30" };
    expect((await jsonSchemaValid({ actual: day, schema: dated })).passed).toBe(false);
    expect((await viaTool({ actual: day, schema: dated, formats: "annotate" })).passed).toBe(true);
  });

  it("errors draft and formats given with a Standard Schema, which validates by its own rules", async () => {
    const good = { id: "o", items: [] };
    for (const schema of [zodOrder, valibotOrder, arktypeOrder]) {
      const drafted = await jsonSchemaValid({ actual: good, schema, draft: "draft-07" });
      expect(drafted).toMatchObject({ value: 0, passed: false, errored: true });
      expect(drafted.rationale).toBe(
        "invalid option: draft applies to a JSON Schema; this schema is a Standard Schema (zod, valibot, arktype…), which validates by its own rules: leave draft out, or pass its JSON Schema (z.toJSONSchema(schema) for zod)",
      );
      const annotated = await viaTool({ actual: good, schema, formats: "annotate" });
      expect(annotated).toMatchObject({ errored: true });
      expect(annotated.rationale).toMatch(/^invalid option: formats applies to a JSON Schema;/);
    }
    // Without them, the same schemas validate.
    expect((await jsonSchemaValid({ actual: good, schema: arktypeOrder })).passed).toBe(true);
  });

  it("validates with valibot and names the path", async () => {
    const score = await jsonSchemaValid({ actual: bad, schema: valibotOrder });
    expect(score).toMatchObject({ value: 0, passed: false });
    expect(score.rationale).toMatch(/^\/items\/2\/price: Invalid type/);
    const good = await jsonSchemaValid({ actual: { id: "o", items: [] }, schema: valibotOrder });
    expect(good.passed).toBe(true);
  });

  it("validates with arktype, whose schemas are functions, directly and through runTool", async () => {
    expect(typeof arktypeOrder).toBe("function");
    const direct = await jsonSchemaValid({ actual: bad, schema: arktypeOrder });
    expect(direct).toMatchObject({ value: 0, passed: false });
    expect(direct.rationale).toMatch(/^\/items\/2\/price: .*must be a number \(was a string\)$/);
    await expect(viaTool({ actual: bad, schema: arktypeOrder })).resolves.toEqual(direct);
    await expect(
      viaTool({ actual: { id: "o", items: [] }, schema: arktypeOrder }),
    ).resolves.toMatchObject({ passed: true });
  });

  it("reports an issue at the root as (root) for every library", async () => {
    const schemas = [z.string(), v.string(), type("string")];
    for (const schema of schemas) {
      const score = await viaTool({ actual: 3, schema });
      expect(score.rationale).toMatch(/^\(root\): /);
    }
  });

  it("awaits a schema that validates asynchronously", async () => {
    const slow = z.string().refine(async (text) => text.startsWith("ok"), "must start with ok");
    expect(await jsonSchemaValid({ actual: "nope", schema: slow })).toMatchObject({
      value: 0,
      rationale: "(root): must start with ok",
    });
    expect(await standardSchemaValid({ actual: "ok!", schema: slow })).toMatchObject({ value: 1 });
  });

  it("standardSchemaValid answers a value that is no Standard Schema as errored", async () => {
    const notSchema = { type: "string" } as unknown as Parameters<
      typeof standardSchemaValid
    >[0]["schema"];
    expect(await standardSchemaValid({ actual: "x", schema: notSchema })).toMatchObject({
      errored: true,
      rationale: expect.stringMatching(/^invalid schema: not a Standard Schema/),
    });
  });

  it("escapes JSON Pointer characters in issue paths", async () => {
    const schema = z.object({ "a/b": z.object({ "c~d": z.number() }) });
    expect(await jsonSchemaValid({ actual: { "a/b": { "c~d": "x" } }, schema })).toMatchObject({
      rationale: "/a~1b/c~0d: Invalid input: expected number, received string",
    });
  });

  it("is errored, not failed, when a schema's validate throws, rejects or answers nonsense", async () => {
    const standard = (validate: () => unknown) => ({
      "~standard": { version: 1 as const, vendor: "test", validate },
    });
    const cases: [() => unknown, string][] = [
      [
        () => {
          throw new Error("boom");
        },
        "invalid schema: its validate threw: boom",
      ],
      [() => Promise.reject(new Error("late")), "invalid schema: its validate threw: late"],
      [() => undefined, "invalid schema: its validate returned undefined, not a result"],
      [
        () => ({ issues: "bad" }),
        "invalid schema: its validate returned issues that are not an array",
      ],
    ];
    for (const [validate, rationale] of cases) {
      const schema = standard(validate) as never;
      const expected = { value: 0, passed: false, errored: true, rationale };
      expect(await jsonSchemaValid({ actual: 1, schema })).toMatchObject(expected);
      await expect(viaTool({ actual: 1, schema })).resolves.toMatchObject(expected);
    }
  });
});
