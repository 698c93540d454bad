import { errorMessage } from "../../errors.js";
import { DEFAULT_DRAFT, type Draft, isDraft } from "./json-schema-drafts.js";
import { findNotJson, nestingDepth } from "./json-schema-json.js";
import type { CompiledJsonSchema, JsonSchema, JsonSchemaOptions } from "./json-schema-model.js";

export type { Draft } from "./json-schema-drafts.js";
export {
  type CompiledJsonSchema,
  type FormatMode,
  type JsonSchema,
  type JsonSchemaCheck,
  type JsonSchemaObject,
  type JsonSchemaOptions,
  KNOWN_FORMATS,
  type MinimalJsonSchema,
} from "./json-schema-model.js";

let engine: Promise<typeof import("./json-schema-engine.js")> | undefined;
/** The validator, loaded with the first schema compiled. */
function compileUncached(schema: JsonSchema, draft: Draft): Promise<CompiledJsonSchema> {
  engine ??= import("./json-schema-engine.js");
  return engine.then((loaded) => loaded.compileUncached(schema, draft));
}

// ---- the cache ----------------------------------------------------------------------------

/** Distinct serialised schemas kept; the oldest is dropped past this. */
const CACHE_LIMIT = 256;
const byIdentity = new WeakMap<object, Map<Draft, Promise<CompiledJsonSchema>>>();
const bySerialisation = new Map<string, Promise<CompiledJsonSchema>>();

function describeNonSchema(schema: unknown): string {
  if (schema === null) return "null";
  if (Array.isArray(schema)) return "an array";
  return typeof schema;
}

/**
 * Compile a JSON Schema once: cached by object identity, then by its JSON text, so the same
 * schema built afresh for every case is compiled once. Never rejects: an unusable schema (not
 * JSON, failing its meta-schema, an unsupported `$schema`, a reference to a document outside
 * it) gives `{ ok: false, reason: "invalid schema: …" }`.
 * @example
 * const compiled = await compileJsonSchema({ type: "integer" });
 * if (compiled.ok) compiled.check(1.5); // → { outcome: "invalid", reason: "(root): must be integer, got number" }
 */
export function compileJsonSchema(
  schema: JsonSchema,
  options: JsonSchemaOptions = {},
): Promise<CompiledJsonSchema> {
  const draft = options.draft ?? DEFAULT_DRAFT;
  if (!isDraft(draft)) {
    return Promise.resolve({
      ok: false,
      reason: `invalid option: draft must be "2020-12", "2019-09" or "draft-07", got ${JSON.stringify(draft)}`,
    });
  }
  const isObject = typeof schema === "object" && schema !== null && !Array.isArray(schema);
  if (!isObject && typeof schema !== "boolean") {
    return Promise.resolve({
      ok: false,
      reason: `invalid schema: a JSON Schema is an object or a boolean, got ${describeNonSchema(schema)}`,
    });
  }
  const known = isObject ? byIdentity.get(schema)?.get(draft) : undefined;
  if (known) return known;
  let key: string;
  try {
    key = `${draft}\u0000${JSON.stringify(schema)}`;
  } catch (error) {
    return Promise.resolve({ ok: false, reason: `invalid schema: ${notJson(schema, error)}` });
  }
  let found = bySerialisation.get(key);
  if (!found) {
    found = compileUncached(schema, draft).catch(
      (error: unknown): CompiledJsonSchema => ({
        ok: false,
        reason: `invalid schema: ${errorMessage(error)}`,
      }),
    );
    if (bySerialisation.size >= CACHE_LIMIT) {
      bySerialisation.delete(bySerialisation.keys().next().value!);
    }
    bySerialisation.set(key, found);
  }
  if (isObject) {
    let drafts = byIdentity.get(schema);
    if (!drafts) {
      drafts = new Map();
      byIdentity.set(schema, drafts);
    }
    drafts.set(draft, found);
  }
  return found;
}

/**
 * Why `JSON.stringify` refused a schema, on one line: where its cycle or BigInt is, or the first
 * line of what the engine said (its message on a cycle spans several lines of its own words).
 */
function notJson(schema: object | boolean, error: unknown): string {
  let found: ReturnType<typeof findNotJson>;
  try {
    found = findNotJson(schema);
  } catch {
    found = undefined;
  }
  const where = found && (found.path.length === 0 ? "(root)" : `/${found.path.join("/")}`);
  if (found?.what === "a circular reference")
    return `not JSON: ${where} is a circular reference; write the recursion as a reference, such as { "$ref": "#" }`;
  if (found?.what === "bigint") return `not JSON: ${where} is a bigint`;
  // JSON.stringify (and findNotJson after it) ran out of stack: the schema is deep, not broken.
  if (error instanceof RangeError && /call stack/i.test(error.message))
    return `it is nested ${nestingDepth(schema)} levels deep, too deep to read (it ran out of stack); write a repeated shape once under $defs and refer to it with $ref`;
  return `not JSON (${errorMessage(error).split("\n", 1)[0]})`;
}
