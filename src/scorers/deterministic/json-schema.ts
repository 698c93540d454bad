import type { ErrorObject, Options, ValidateFunction } from "ajv";
import Ajv07 from "ajv";
import Ajv2019 from "ajv/dist/2019.js";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { errorMessage } from "../../errors.js";

/**
 * A JSON Schema object. Its `$schema` picks the draft: 2020-12 when absent; 2019-09 and draft-07
 * are also understood. Typed as a plain keyword record so `Record<string, unknown>` and
 * generated schemas (such as `z.toJSONSchema(...)`) fit it as they are.
 */
export interface JsonSchemaObject {
  readonly [keyword: string]: unknown;
}

/** A JSON Schema: an object, or `true` (anything) / `false` (nothing). */
export type JsonSchema = JsonSchemaObject | boolean;

/** The seed's name for the schema `eval.json-schema-valid` takes; it is full JSON Schema here. */
export type MinimalJsonSchema = JsonSchema;

/** A schema ready to check values: a validator, or why the schema itself is unusable. */
export type CompiledJsonSchema =
  | {
      readonly ok: true;
      readonly validate: ValidateFunction;
      /** Rationale of a passing value, made once. */
      readonly passed: string;
    }
  | { readonly ok: false; readonly rationale: string };

type Draft = "2020-12" | "2019-09" | "draft-07";
type AjvInstance = InstanceType<typeof Ajv2020.default>;

const drafts = new Map<Draft, AjvInstance>();

function ajvFor(draft: Draft): AjvInstance {
  let ajv = drafts.get(draft);
  if (ajv) return ajv;
  // "log" lets unknown keywords (x-*, example) through silently but still rejects an unknown format such as "emial".
  const options: Options = {
    strictSchema: "log",
    strictTypes: false,
    strictTuples: false,
    logger: false,
  };
  ajv =
    draft === "draft-07"
      ? new Ajv07.default(options)
      : draft === "2019-09"
        ? new Ajv2019.default(options)
        : new Ajv2020.default(options);
  addFormats.default(ajv);
  drafts.set(draft, ajv);
  return ajv;
}

function draftOf(schema: JsonSchema): Draft | string {
  if (typeof schema === "boolean" || schema.$schema === undefined) return "2020-12";
  if (typeof schema.$schema !== "string") return "$schema must be a string URI";
  const uri = String(schema.$schema)
    .replace(/^https?:\/\//, "")
    .replace(/#$/, "");
  if (uri === "json-schema.org/draft/2020-12/schema") return "2020-12";
  if (uri === "json-schema.org/draft/2019-09/schema") return "2019-09";
  if (uri === "json-schema.org/draft-07/schema") return "draft-07";
  return `unsupported $schema ${JSON.stringify(schema.$schema)}: use draft 2020-12 (the default, no $schema needed), 2019-09 or draft-07`;
}

function compileUncached(schema: JsonSchema): CompiledJsonSchema {
  const draft = draftOf(schema);
  if (draft !== "2020-12" && draft !== "2019-09" && draft !== "draft-07") {
    return { ok: false, rationale: `invalid schema: ${draft}` };
  }
  const ajv = ajvFor(draft);
  try {
    const validate = ajv.compile(schema);
    return {
      ok: true,
      validate,
      passed: `actual is valid against the JSON Schema (draft ${draft})`,
    };
  } catch (error) {
    // ajv says an unknown format is "ignored"; here it fails the schema, so drop that word.
    const message = errorMessage(error).replace(" ignored in schema", " in schema");
    return { ok: false, rationale: `invalid schema: ${message}` };
  } finally {
    // The validator keeps working; dropping the schema from ajv keeps its memory bounded by our cache.
    if (typeof schema === "object") ajv.removeSchema(schema);
  }
}

/** Distinct serialised schemas kept; the oldest is dropped past this. */
const CACHE_LIMIT = 256;
const byIdentity = new WeakMap<object, CompiledJsonSchema>();
const bySerialisation = new Map<string, CompiledJsonSchema>();

/**
 * Compile a JSON Schema once: cached by object identity, then by its JSON text, so the same
 * schema built afresh for every case is compiled once. Never throws: an unusable schema gives
 * `{ ok: false, rationale: "invalid schema: …" }`.
 */
export function compileJsonSchema(schema: JsonSchema): CompiledJsonSchema {
  const isObject = typeof schema === "object" && schema !== null && !Array.isArray(schema);
  if (!isObject && typeof schema !== "boolean") {
    return {
      ok: false,
      rationale: `invalid schema: a JSON Schema is an object or a boolean, got ${schema === null ? "null" : Array.isArray(schema) ? "an array" : typeof schema}`,
    };
  }
  if (isObject) {
    const known = byIdentity.get(schema);
    if (known) return known;
  }
  let key: string;
  try {
    key = JSON.stringify(schema);
  } catch (error) {
    return { ok: false, rationale: `invalid schema: not JSON (${errorMessage(error)})` };
  }
  let compiled = bySerialisation.get(key);
  if (!compiled) {
    compiled = compileUncached(schema);
    if (bySerialisation.size >= CACHE_LIMIT) {
      bySerialisation.delete(bySerialisation.keys().next().value!);
    }
    bySerialisation.set(key, compiled);
  }
  if (isObject) byIdentity.set(schema, compiled);
  return compiled;
}

const MAX_SHOWN_VALUES = 5;
const MAX_DETAILS = 3;

function pathOf(error: ErrorObject): string {
  return error.instancePath === "" ? "(root)" : error.instancePath;
}

function listValues(values: readonly unknown[]): string {
  const shown = values.slice(0, MAX_SHOWN_VALUES).map((value) => JSON.stringify(value));
  return values.length > MAX_SHOWN_VALUES ? `${shown.join(", ")}, …` : shown.join(", ");
}

function describe(error: ErrorObject): string {
  const message = error.message ?? `fails "${error.keyword}"`;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === "enum" && Array.isArray(params.allowedValues)) {
    return `${message}: ${listValues(params.allowedValues)}`;
  }
  if (error.keyword === "const") return `${message} ${JSON.stringify(params.allowedValue)}`;
  if (error.keyword === "additionalProperties") {
    return `${message} (${JSON.stringify(params.additionalProperty)})`;
  }
  if (error.keyword === "unevaluatedProperties") {
    return `${message} (${JSON.stringify(params.unevaluatedProperty)})`;
  }
  return message;
}

/**
 * Word the violation that failed validation: `"/items/2/price: must be number"`. ajv stops at
 * the first failing keyword, so that is the last error; the ones before it are the reasons a
 * combinator (oneOf, anyOf, if/then) failed, and are appended in brackets.
 */
export function describeViolation(errors: readonly ErrorObject[]): string {
  const failing = errors[errors.length - 1];
  if (!failing) return "(root): does not match the schema";
  const head = `${pathOf(failing)}: ${describe(failing)}`;
  if (errors.length === 1) return head;
  const details = errors.slice(0, Math.min(errors.length - 1, MAX_DETAILS)).map((detail) => {
    const text = describe(detail);
    return detail.instancePath === failing.instancePath ? text : `${pathOf(detail)}: ${text}`;
  });
  if (errors.length - 1 > MAX_DETAILS) details.push("…");
  return `${head} (${details.join("; ")})`;
}
