import { describe, expect, it } from "vitest";
import type { JsonSchema } from "./json-schema.js";
import { jsonSchemaValid } from "./json-schema-valid.js";

const DRAFT_07 = "http://json-schema.org/draft-07/schema#";

const check = (actual: unknown, schema: JsonSchema) => jsonSchemaValid({ actual, schema });

// zod-to-json-schema 3.25.2's output for `zodToJsonSchema(Order, "Order")` (zod 3), as emitted:
// a root $ref beside `definitions`, and a reused object referenced by a pointer into another.
const zodOrder = {
  $ref: "#/definitions/Order",
  definitions: {
    Order: {
      type: "object",
      properties: {
        id: { type: "integer" },
        email: { type: "string", format: "email" },
        items: {
          type: "array",
          items: {
            type: "object",
            properties: { sku: { type: "string" }, qty: { type: "integer", exclusiveMinimum: 0 } },
            required: ["sku", "qty"],
            additionalProperties: false,
          },
          minItems: 1,
        },
        gift: { $ref: "#/definitions/Order/properties/items/items" },
        status: { type: "string", enum: ["open", "paid"] },
      },
      required: ["id", "email", "items", "status"],
      additionalProperties: false,
    },
  },
  $schema: DRAFT_07,
};
// zod-to-json-schema 3.25.2's output for a recursive z.lazy schema, `{ name: "Node" }`.
const zodNode = {
  $ref: "#/definitions/Node",
  definitions: {
    Node: {
      type: "object",
      properties: {
        value: { type: "number" },
        children: { type: "array", items: { $ref: "#/definitions/Node" } },
      },
      required: ["value", "children"],
      additionalProperties: false,
    },
  },
  $schema: DRAFT_07,
};

describe("a draft-07 $ref beside the definitions it points into", () => {
  it("validates zod-to-json-schema's output, naming the path of a violation", async () => {
    const order = { id: 1, email: "a@b.co", items: [{ sku: "x", qty: 2 }], status: "open" };
    expect(await check(order, zodOrder)).toMatchObject({
      passed: true,
      rationale: "actual is valid against the JSON Schema (draft-07)",
    });
    const badGift = { ...order, gift: { sku: "y", qty: 0 } };
    expect(await check(badGift, zodOrder)).toMatchObject({
      passed: false,
      rationale: expect.stringMatching(/^\/gift\/qty: /),
    });
    expect((await check({ ...order, id: "1" }, zodOrder)).rationale).toBe(
      "/id: must be integer, got string",
    );
    const tree = { value: 1, children: [{ value: 2, children: [] }] };
    expect((await check(tree, zodNode)).passed).toBe(true);
    const badTree = { value: 1, children: [{ value: "2", children: [] }] };
    expect((await check(badTree, zodNode)).rationale).toBe(
      "/children/0/value: must be number, got string",
    );
  });

  it("still ignores the other keywords beside the $ref, as draft-07 does", async () => {
    const schema = {
      $schema: DRAFT_07,
      $ref: "#/definitions/A",
      type: "string",
      maximum: 0,
      allOf: [false],
      definitions: { A: { type: "integer" } },
    };
    expect((await check(3, schema)).passed).toBe(true);
    expect((await check("3", schema)).rationale).toBe("(root): must be integer, got string");
  });

  it("keeps the base URI a $id beside the $ref would have changed, and the # of the root", async () => {
    const schema = {
      $schema: DRAFT_07,
      $id: "https://example.com/root.json",
      type: "object",
      properties: {
        next: {
          $id: "https://other.example/ignored.json",
          $ref: "#/properties/next/definitions/Link",
          definitions: { Link: { anyOf: [{ type: "null" }, { $ref: "#" }] } },
        },
      },
    };
    expect((await check({ next: { next: null } }, schema)).passed).toBe(true);
    expect((await check({ next: { next: 1 } }, schema)).passed).toBe(false);
  });

  it("leaves the schema it was given as it was", async () => {
    const before = structuredClone(zodOrder);
    await check({ id: 1 }, zodOrder);
    expect(zodOrder).toEqual(before);
  });

  it("says why, and what to do, when a reference points into an asserting keyword beside a $ref", async () => {
    const schema = {
      $schema: DRAFT_07,
      $ref: "#/properties/a",
      properties: { a: { type: "integer" } },
    };
    expect(await check(3, schema)).toMatchObject({
      errored: true,
      rationale: expect.stringContaining(
        'a reference points into "properties" beside the "$ref" at the root, which draft-07 ignores: move what it points to under "definitions", or use draft 2019-09 or later',
      ),
    });
  });
});
