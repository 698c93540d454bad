import {
  getAllRegisteredSchemaUris,
  getShouldValidateFormat,
  hasSchema,
  registerSchema,
  setShouldValidateFormat,
  setShouldValidateSchema,
  unregisterSchema,
  type Validator,
  validate,
} from "@hyperjump/json-schema/draft-2020-12";
import "./json-schema-dialects.js";
import { BASIC, DETAILED } from "@hyperjump/json-schema/experimental";
import { errorMessage } from "../../errors.js";
import { DIALECT, type Draft, draftOfDialect } from "./json-schema-drafts.js";
import {
  type DetailedError,
  describeErrors,
  describeSchemaErrors,
  type ValidationError,
} from "./json-schema-errors.js";
import { compileQuickCheck, type QuickCheck } from "./json-schema-fast.js";
import {
  findNotJson,
  hasHiddenNonJson,
  nestingDepth,
  withoutUndefined,
} from "./json-schema-json.js";
import { referenceLoop } from "./json-schema-loops.js";
import {
  type CompiledJsonSchema,
  definesFormat,
  type FormatMode,
  type JsonSchema,
  type JsonSchemaCheck,
} from "./json-schema-model.js";
import { exposeRefSiblings } from "./json-schema-ref-siblings.js";
import { mapSchema, placeOf, type SchemaMap, withoutFragment } from "./json-schema-walk.js";

// The validator (@hyperjump/json-schema) and its dialects are a large graph: this module is
// imported on the first schema compiled, so a run without one never loads them.

// The library's hostname checks print their parse errors with console.log; a scorer stays quiet.
const NOISY_FORMATS = new Set(["hostname", "idn-hostname", "idn-email"]);

const BASE = "https://niceeval.invalid/schema/";
// A schema is checked against its draft's meta-schema here (compileUncached), with reasons in the
// scorer's words; the library's own check would compile the meta-schema a second time.
setShouldValidateSchema(false);
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

const IRI_KEYWORDS = ["$id", "$ref", "$dynamicRef", "$recursiveRef", "$schema"];
const PATTERN_KEYWORDS = ["pattern", "patternProperties"];

/**
 * The validator's word on an invalid IRI or regular expression, which names the value only, said
 * with where the schema writes it: `/properties/a/$ref is "#/%%%", which is not a valid IRI reference`.
 */
function placed(message: string, map: SchemaMap): string {
  const iri = /^Invalid IRI(?:-reference)?: (.*)$/s.exec(message);
  const iriPlace = iri && placeOf(map, IRI_KEYWORDS, iri[1]!);
  if (iri && iriPlace)
    return `${iriPlace} is ${JSON.stringify(iri[1])}, which is not a valid IRI reference`;
  const regex = /^Invalid regular expression: \/(.*)\/[a-z]*: (.*)$/s.exec(message);
  const regexPlace = regex && placeOf(map, PATTERN_KEYWORDS, regex[1]!);
  if (regex && regexPlace)
    return `${regexPlace} is ${JSON.stringify(regex[1])}, which is not a valid regular expression (${regex[2]})`;
  return message;
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

const VALID: JsonSchemaCheck = { outcome: "valid" };

function makeChecker(
  validator: Validator,
  map: SchemaMap,
  quick: QuickCheck | undefined,
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
        const detailed = (): readonly DetailedError[] => {
          const tree = validator(actual as never, DETAILED);
          return (tree.valid ? [] : (tree.errors ?? [])) as DetailedError[];
        };
        const reason = describeErrors(errors, {
          resources: map.resources,
          instance: actual,
          detailed,
        });
        return { outcome: "invalid", reason };
      });
    } finally {
      setShouldValidateFormat(previous);
    }
  };
  const notJsonReason = (notJson: NonNullable<ReturnType<typeof findNotJson>>) => {
    const path = notJson.path.length === 0 ? "(root)" : `/${notJson.path.join("/")}`;
    return {
      outcome: "invalid" as const,
      reason: `${path}: must be a JSON value, got ${notJson.what}`,
    };
  };
  return (actual, formats = "assert") => {
    // A plain schema and a valid JSON value: no need for the validator (json-schema-fast.ts).
    if (quick?.(actual)) return VALID;
    // NaN, ±Infinity and holes pass the validator as numbers and nulls; JSON has none of them.
    if (hasHiddenNonJson(actual)) {
      const notJson = findNotJson(actual);
      if (notJson) return notJsonReason(notJson);
    }
    try {
      return run(actual, formats);
    } catch (error) {
      // A cycle overflows the validator's stack too, and findNotJson names it; a value nested
      // deeper than findNotJson can follow is one the validator could not follow either.
      let notJson: ReturnType<typeof findNotJson>;
      try {
        notJson = findNotJson(actual);
      } catch (deep) {
        if (isStackOverflow(error) && isStackOverflow(deep)) return tooDeep(actual);
        throw deep;
      }
      if (notJson?.onlyUndefinedProperties) {
        // JSON leaves out a property whose value is undefined; read the value the same way.
        try {
          return run(withoutUndefined(actual), formats);
        } catch (again) {
          return { outcome: "errored", reason: `the validator failed: ${errorMessage(again)}` };
        }
      }
      if (notJson) return notJsonReason(notJson);
      return { outcome: "errored", reason: `the validator failed: ${errorMessage(error)}` };
    }
  };
}

/** Whether an error is V8's "Maximum call stack size exceeded". */
function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && /call stack/iu.test(error.message);
}

/** The errored outcome of a value nested deeper than the validator's recursion can follow. */
function tooDeep(actual: unknown) {
  return {
    outcome: "errored" as const,
    reason: `actual is nested ${nestingDepth(actual)} levels deep, too deep for the validator (it ran out of stack): validate a shallower value or a part of it`,
  };
}

/**
 * Compile one schema (no cache), read as `fallback` when it names no `$schema`. `quick: false`
 * leaves out the quick check (its tests measure it against the validator alone).
 */
export async function compileUncached(
  schema: JsonSchema,
  fallback: Draft,
  { quick = true }: { quick?: boolean } = {},
): Promise<CompiledJsonSchema> {
  let draft: Draft = fallback;
  if (typeof schema === "object" && schema.$schema !== undefined) {
    const named = draftOfDialect(schema.$schema);
    if (typeof named !== "string") return { ok: false, reason: `invalid schema: ${named.reason}` };
    draft = named;
  }
  const base = `${BASE}${++compiled}`;
  // What the validator compiles: in draft-07, `$ref` objects whose siblings hold reference
  // targets made visible to it (json-schema-ref-siblings.ts); the schema as written otherwise.
  let exposed: ReturnType<typeof exposeRefSiblings> = { schema };
  let map: SchemaMap;
  try {
    if (draft === "draft-07") exposed = exposeRefSiblings(schema, base);
    map = mapSchema(exposed.schema, base, draft);
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
  const loop = referenceLoop(map);
  if (loop) return { ok: false, reason: `invalid schema: ${loop}` };
  return oneAtATime(async () => {
    const before = new Set(getAllRegisteredSchemaUris());
    try {
      registerSchema(exposed.schema as never, base, DIALECT[draft]);
      const validator = await validate(base);
      const unknownFormats = [...map.formats].filter((format) => !definesFormat(draft, format));
      const quickCheck = quick ? compileQuickCheck(exposed.schema) : undefined;
      return { ok: true, draft, unknownFormats, check: makeChecker(validator, map, quickCheck) };
    } catch (error) {
      const why = exposed.hidden === undefined ? "" : ` (${exposed.hidden})`;
      return {
        ok: false,
        reason: `invalid schema: ${placed(withoutBase(errorMessage(error), base), map)}${why}`,
      };
    } finally {
      for (const uri of getAllRegisteredSchemaUris()) if (!before.has(uri)) unregisterSchema(uri);
    }
  });
}
