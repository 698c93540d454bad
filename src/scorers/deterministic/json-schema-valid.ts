import type { StandardSchemaV1 } from "@standard-schema/spec";
import { z } from "zod";
import { errorMessage } from "../../errors.js";
import { type Score, scoreSchema } from "../../score/score.js";
import { defineTool, implementTool } from "../../tool/tool.js";
import {
  compileJsonSchema,
  describeViolation,
  type JsonSchema,
  type JsonSchemaObject,
} from "./json-schema.js";
import { isStandardSchema, issuePointer } from "./standard-schema.js";

const LABEL = "json-schema-valid";
const STANDARD_PASSED = "actual is valid against the schema";

/** Input of the `eval.json-schema-valid` scorer. */
export interface JsonSchemaValidInput<S = JsonSchema | StandardSchemaV1> {
  /** The value produced (parsed JSON, not a JSON string). */
  actual: unknown;
  /** A JSON Schema (draft 2020-12 by default, 2019-09 or draft-07 by `$schema`), or a Standard Schema. */
  schema: S;
}

function failed(rationale: string): Score {
  return { value: 0, passed: false, label: LABEL, rationale };
}

function fromStandardResult(result: StandardSchemaV1.Result<unknown>): Score {
  const issue = result.issues?.[0];
  if (!issue) return { value: 1, passed: true, label: LABEL, rationale: STANDARD_PASSED };
  return failed(`${issuePointer(issue)}: ${issue.message}`);
}

function schemaThrew(error: unknown): Score {
  return failed(`invalid schema: its validate threw: ${errorMessage(error)}`);
}

/** Validate with a Standard Schema; synchronous when the schema answers synchronously. */
function validateStandard(actual: unknown, schema: StandardSchemaV1): Score | Promise<Score> {
  let result: StandardSchemaV1.Result<unknown> | Promise<StandardSchemaV1.Result<unknown>>;
  try {
    result = schema["~standard"].validate(actual);
  } catch (error) {
    return schemaThrew(error);
  }
  return result instanceof Promise
    ? result.then(fromStandardResult, schemaThrew)
    : fromStandardResult(result);
}

/**
 * Score 1 when `actual` is valid against the schema, else 0 with the first violation and its
 * JSON path (`"/items/2/price: must be number"`). Takes full JSON Schema through ajv (compiled
 * once per schema and cached) or a Standard Schema such as a zod or valibot schema; a Standard
 * Schema that validates asynchronously makes the result a Promise. An unusable schema gives a
 * failed Score whose rationale starts with "invalid schema:"; it never throws.
 * @example
 * jsonSchemaValid({ actual: { n: "1" }, schema: { type: "object", properties: { n: { type: "number" } } } });
 * // → { value: 0, passed: false, label: "json-schema-valid", rationale: "/n: must be number" }
 */
export function jsonSchemaValid(
  input: JsonSchemaValidInput<StandardSchemaV1>,
): Score | Promise<Score>;
export function jsonSchemaValid(input: JsonSchemaValidInput<JsonSchema>): Score;
export function jsonSchemaValid(input: JsonSchemaValidInput): Score | Promise<Score>;
export function jsonSchemaValid(input: JsonSchemaValidInput): Score | Promise<Score> {
  const { actual, schema } = input;
  if (isStandardSchema(schema)) return validateStandard(actual, schema);
  const compiled = compileJsonSchema(schema);
  if (!compiled.ok) return failed(compiled.rationale);
  if (compiled.validate(actual)) {
    return { value: 1, passed: true, label: LABEL, rationale: compiled.passed };
  }
  return failed(describeViolation(compiled.validate.errors ?? []));
}

/**
 * Validate `actual` against a Standard Schema (zod 4, valibot, …) as a `json-schema-valid`
 * Score, always as a Promise since a Standard Schema may validate asynchronously.
 * @example
 * await standardSchemaValid({ actual: 3, schema: z.string() });
 * // → { value: 0, passed: false, label: "json-schema-valid", rationale: "(root): Invalid input: expected string, received number" }
 */
export async function standardSchemaValid(
  input: JsonSchemaValidInput<StandardSchemaV1>,
): Promise<Score> {
  if (!isStandardSchema(input.schema)) {
    return failed("invalid schema: not a Standard Schema (it has no `~standard.validate`)");
  }
  return validateStandard(input.actual, input.schema);
}

function isSchemaLike(value: unknown): value is JsonSchema {
  return (
    typeof value === "boolean" ||
    (typeof value === "object" && value !== null && !Array.isArray(value))
  );
}

/**
 * The `eval.json-schema-valid` tool contract; over JSON its schema is a JSON Schema. The input
 * type names an object schema (what callers write); `true`/`false` schemas are accepted too.
 */
export const jsonSchemaValidTool = defineTool({
  id: "eval.json-schema-valid",
  description:
    "Score 1 when actual is valid against a JSON Schema (2020-12, 2019-09 or draft-07), else 0 with the first violation and its path.",
  inputSchema: z.object({
    actual: z.unknown(),
    // z.custom keeps the caller's schema object (no copy), so compiled validators are found by identity.
    schema: z.custom<JsonSchemaObject>(isSchemaLike, {
      message: "must be a JSON Schema: an object or a boolean",
    }),
  }),
  outputSchema: scoreSchema,
});

/** The implementation of `eval.json-schema-valid`, bundled in `evalScorersProvider`. */
export const jsonSchemaValidImpl = implementTool(jsonSchemaValidTool, (input) =>
  jsonSchemaValid(input as JsonSchemaValidInput),
);
