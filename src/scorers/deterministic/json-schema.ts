import {
  getAllRegisteredSchemaUris,
  getShouldValidateFormat,
  hasSchema,
  registerSchema,
  setShouldValidateFormat,
  unregisterSchema,
  type Validator,
  validate,
} from "@hyperjump/json-schema/draft-2020-12";
import "./json-schema-dialects.js";
import { BASIC } from "@hyperjump/json-schema/experimental";
import { errorMessage } from "../../errors.js";
import {
  DEFAULT_DRAFT,
  DIALECT,
  type Draft,
  draftOfDialect,
  isDraft,
} from "./json-schema-drafts.js";
import {
  describeErrors,
  describeSchemaErrors,
  type ValidationError,
} from "./json-schema-errors.js";
import { findNotJson, withoutUndefined } from "./json-schema-json.js";
import { mapSchema, type SchemaMap, withoutFragment } from "./json-schema-walk.js";

export type { Draft } from "./json-schema-drafts.js";

/**
 * A JSON Schema object. Its `$schema` picks the draft (2020-12, 2019-09 or draft-07); without
 * one it is read as the `draft` option, 2020-12 by default. Typed as a plain keyword record so
 * `Record<string, unknown>` and generated schemas (such as `z.toJSONSchema(...)`) fit it.
 */
export interface JsonSchemaObject {
  readonly [keyword: string]: unknown;
}

/** A JSON Schema: an object, or `true` (anything) / `false` (nothing). */
export type JsonSchema = JsonSchemaObject | boolean;

/** The seed's name for the schema `eval.json-schema-valid` takes; it is full JSON Schema here. */
export type MinimalJsonSchema = JsonSchema;

/**
 * How `format` is read. `"assert"` (the default): a string that is not a valid `email`,
 * `date-time`, `idn-hostname`… fails. `"annotate"`: `format` is only an annotation and never
 * fails, as draft 2020-12 reads it when no vocabulary asks for assertion.
 */
export type FormatMode = "assert" | "annotate";

/** Options of {@link compileJsonSchema} and `eval.json-schema-valid`. */
export interface JsonSchemaOptions {
  /** The draft a schema without `$schema` is read as; `"2020-12"` by default. `$schema` wins. */
  readonly draft?: Draft;
  /** Whether `format` fails a value (`"assert"`, the default) or only annotates it. */
  readonly formats?: FormatMode;
}

/** The outcome of checking one value: valid, invalid (the value's fault), or errored (ours). */
export type JsonSchemaCheck =
  | { readonly outcome: "valid" }
  | { readonly outcome: "invalid"; readonly reason: string }
  | { readonly outcome: "errored"; readonly reason: string };

/** A schema ready to check values, or why the schema itself is unusable. */
export type CompiledJsonSchema =
  | {
      readonly ok: true;
      /** The draft the schema was read as. */
      readonly draft: Draft;
      /** Formats the schema names that no draft defines; they are never checked. */
      readonly unknownFormats: readonly string[];
      /** Check a value. Never throws. */
      check(actual: unknown, formats?: FormatMode): JsonSchemaCheck;
    }
  | { readonly ok: false; readonly reason: string };

/** The formats drafts 2020-12, 2019-09 and 07 define; all are checked when formats assert. */
export const KNOWN_FORMATS: ReadonlySet<string> = new Set([
  "date-time",
  "date",
  "time",
  "duration",
  "email",
  "idn-email",
  "hostname",
  "idn-hostname",
  "ipv4",
  "ipv6",
  "uri",
  "uri-reference",
  "iri",
  "iri-reference",
  "uuid",
  "uri-template",
  "json-pointer",
  "relative-json-pointer",
  "regex",
]);

// The library's hostname checks print their parse errors with console.log; a scorer stays quiet.
const NOISY_FORMATS = new Set(["hostname", "idn-hostname", "idn-email"]);

const BASE = "https://niceeval.invalid/schema/";
let compiled = 0;

// ---- compiling, one at a time -------------------------------------------------------------

// The library keeps one registry of schemas by URI; compiling one schema at a time (and
// unregistering it after) lets two schemas share an `$id` without clashing.
let queue: Promise<unknown> = Promise.resolve();
function oneAtATime<T>(task: () => Promise<T>): Promise<T> {
  const run = queue.then(task, task);
  queue = run.catch(() => undefined);
  return run;
}

function withoutBase(message: string, base: string): string {
  return message.replaceAll(base, "(schema)").replaceAll(BASE, "");
}

function outsideReference(map: SchemaMap): string | undefined {
  for (const { written, resolved } of map.references) {
    const document = withoutFragment(resolved);
    if (map.resources.has(document) || hasSchema(document)) continue;
    const where = document.startsWith(BASE) ? "a document beside the schema" : document;
    return `reference ${JSON.stringify(written)} points to ${where}, outside the schema; niceeval does not fetch schemas: embed it under $defs with its "$id"`;
  }
  return undefined;
}

const metaValidators = new Map<Draft, Promise<Validator>>();
function metaValidator(draft: Draft): Promise<Validator> {
  let found = metaValidators.get(draft);
  if (!found) {
    found = validate(DIALECT[draft]);
    metaValidators.set(draft, found);
  }
  return found;
}

function runQuietly<T>(noisy: boolean, task: () => T): T {
  if (!noisy) return task();
  const log = console.log;
  console.log = () => undefined;
  try {
    return task();
  } finally {
    console.log = log;
  }
}

function makeChecker(
  validator: Validator,
  map: SchemaMap,
): (actual: unknown, formats?: FormatMode) => JsonSchemaCheck {
  const noisy = [...map.formats].some((format) => NOISY_FORMATS.has(format));
  const run = (actual: unknown, formats: FormatMode): JsonSchemaCheck => {
    const previous = getShouldValidateFormat();
    setShouldValidateFormat(formats === "assert");
    try {
      return runQuietly(noisy, () => {
        if (validator(actual as never).valid) return { outcome: "valid" };
        const output = validator(actual as never, BASIC);
        const errors = (output.valid ? [] : (output.errors ?? [])) as ValidationError[];
        const reason = describeErrors(errors, { resources: map.resources, instance: actual });
        return { outcome: "invalid", reason };
      });
    } finally {
      setShouldValidateFormat(previous);
    }
  };
  return (actual, formats = "assert") => {
    try {
      return run(actual, formats);
    } catch (error) {
      const notJson = findNotJson(actual);
      if (notJson?.onlyUndefinedProperties) {
        // JSON leaves out a property whose value is undefined; read the value the same way.
        try {
          return run(withoutUndefined(actual), formats);
        } catch (again) {
          return { outcome: "errored", reason: `the validator failed: ${errorMessage(again)}` };
        }
      }
      if (notJson) {
        const path = notJson.path.length === 0 ? "(root)" : `/${notJson.path.join("/")}`;
        return { outcome: "invalid", reason: `${path}: must be a JSON value, got ${notJson.what}` };
      }
      return { outcome: "errored", reason: `the validator failed: ${errorMessage(error)}` };
    }
  };
}

async function compileUncached(schema: JsonSchema, fallback: Draft): Promise<CompiledJsonSchema> {
  let draft: Draft = fallback;
  if (typeof schema === "object" && schema.$schema !== undefined) {
    const named = draftOfDialect(schema.$schema);
    if (typeof named !== "string") return { ok: false, reason: `invalid schema: ${named.reason}` };
    draft = named;
  }
  const base = `${BASE}${++compiled}`;
  let map: SchemaMap;
  try {
    map = mapSchema(schema, base, draft);
  } catch (error) {
    return { ok: false, reason: `invalid schema: ${errorMessage(error)}` };
  }
  const outside = outsideReference(map);
  if (outside) return { ok: false, reason: `invalid schema: ${outside}` };
  try {
    const meta = (await metaValidator(draft))(schema as never, BASIC);
    if (!meta.valid) {
      const why = describeSchemaErrors((meta.errors ?? []) as ValidationError[], schema, draft);
      return { ok: false, reason: `invalid schema: ${why}` };
    }
  } catch (error) {
    return { ok: false, reason: `invalid schema: ${errorMessage(error)}` };
  }
  return oneAtATime(async () => {
    const before = new Set(getAllRegisteredSchemaUris());
    try {
      registerSchema(schema as never, base, DIALECT[draft]);
      const validator = await validate(base);
      const unknownFormats = [...map.formats].filter((format) => !KNOWN_FORMATS.has(format));
      return { ok: true, draft, unknownFormats, check: makeChecker(validator, map) };
    } catch (error) {
      return { ok: false, reason: `invalid schema: ${withoutBase(errorMessage(error), base)}` };
    } finally {
      for (const uri of getAllRegisteredSchemaUris()) if (!before.has(uri)) unregisterSchema(uri);
    }
  });
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
    return Promise.resolve({
      ok: false,
      reason: `invalid schema: not JSON (${errorMessage(error)})`,
    });
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
