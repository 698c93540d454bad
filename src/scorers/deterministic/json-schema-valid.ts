import type { StandardSchemaV1 } from "@standard-schema/spec";
import * as z from "zod";
import { errorMessage } from "../../errors.js";
import { type KnownKeys, misspeltKeysMessage } from "../../known-keys.js";
import { valueKind } from "../../required.js";
import { scoreSchema } from "../../score/score.js";
import { isStandardSchema, issuePointer } from "../../tool/standard-schema.js";
import { defineTool, hasOnlyKeys, implementBuiltInTool, isObjectInput } from "../../tool/tool.js";
import { scorerInputSchema } from "../tool-input.js";
import {
  type CompiledJsonSchema,
  compileJsonSchema,
  type FormatMode,
  type JsonSchema,
} from "./json-schema.js";
import { DRAFTS, type Draft } from "./json-schema-drafts.js";
import { parseJsonText } from "./json-text.js";

const LABEL = "json-schema-valid";
const STANDARD_PASSED = "actual is valid against the schema";

/** Input of the `eval.json-schema-valid` scorer. */
export interface JsonSchemaValidInput<S = JsonSchema | StandardSchemaV1> {
  /** The value produced: parsed JSON, or with `parseJson: true` the JSON text of it. */
  actual: unknown;
  /**
   * A JSON Schema (its `$schema` picks draft 2020-12, 2019-09 or draft-07; without one it is
   * read as `draft`), or a Standard Schema such as a zod, valibot or arktype schema.
   */
  schema: S;
  /** The draft a JSON Schema without `$schema` is read as: `"2020-12"` (the default), `"2019-09"` or `"draft-07"`. */
  draft?: Draft | undefined;
  /** `"assert"` (the default): a string that breaks its `format` fails. `"annotate"`: `format` never fails. */
  formats?: FormatMode | undefined;
  /**
   * `true`: `actual` is JSON text (a model's answer), parsed before it is validated; text that
   * is not JSON fails (score 0, the reason saying where it breaks), as promptfoo's `is-json`.
   * `false` (the default): `actual` is the value itself.
   */
  parseJson?: boolean | undefined;
}
const inputKeys = {
  actual: true,
  schema: true,
  draft: true,
  formats: true,
  parseJson: true,
} satisfies KnownKeys<JsonSchemaValidInput>;
const INPUT_KEYS_LIST = Object.keys(inputKeys);
const INPUT_KEYS = new Set(INPUT_KEYS_LIST);

/**
 * The `eval.json-schema-valid` Score. `errored: true` means the scorer could not judge the
 * value (the schema is unusable, or the validator failed): the reason says why, and it is not
 * the value's failure.
 */
export const jsonSchemaScoreSchema = scoreSchema.extend({
  errored: z.literal(true).optional(),
});

/** The `eval.json-schema-valid` Score: a Score that may be `errored`. */
export type JsonSchemaScore = z.infer<typeof jsonSchemaScoreSchema>;

function passed(rationale: string): JsonSchemaScore {
  return { value: 1, passed: true, label: LABEL, rationale };
}

function failed(rationale: string): JsonSchemaScore {
  return { value: 0, passed: false, label: LABEL, rationale };
}

function errored(rationale: string): JsonSchemaScore {
  return { value: 0, passed: false, label: LABEL, rationale, errored: true };
}

function fromStandardResult(result: unknown): JsonSchemaScore {
  if (typeof result !== "object" || result === null) {
    return errored(`invalid schema: its validate returned ${String(result)}, not a result`);
  }
  const issues = (result as { issues?: unknown }).issues;
  if (issues === undefined) return passed(STANDARD_PASSED);
  if (!Array.isArray(issues)) {
    return errored("invalid schema: its validate returned issues that are not an array");
  }
  const issue = issues[0] as StandardSchemaV1.Issue | undefined;
  if (!issue) return failed("(root): does not match the schema");
  return failed(`${issuePointer(issue)}: ${String(issue.message)}`);
}

/**
 * Whether a schema is validated through its `~standard`: a Standard Schema that is not also a
 * JSON Schema document. zod's `z.toJSONSchema` gives a plain object whose hidden (non-enumerable)
 * `~standard` validates with the zod schema it came from; handed over as a JSON Schema, it is read
 * as one, so an edit to it and the `draft` and `formats` options count.
 */
function validatesAsStandard(schema: unknown): schema is StandardSchemaV1 {
  if (!isStandardSchema(schema)) return false;
  const prototype = Object.getPrototypeOf(schema);
  const plain = prototype === Object.prototype || prototype === null;
  return !(plain && !Object.getOwnPropertyDescriptor(schema, "~standard")?.enumerable);
}

function schemaThrew(error: unknown): JsonSchemaScore {
  return errored(`invalid schema: its validate threw: ${errorMessage(error)}`);
}

async function validateStandard(
  actual: unknown,
  schema: StandardSchemaV1,
): Promise<JsonSchemaScore> {
  try {
    return fromStandardResult(await schema["~standard"].validate(actual));
  } catch (error) {
    return schemaThrew(error);
  }
}

function unknownFormatsNote(formats: readonly string[], draft: Draft): string {
  if (formats.length === 0) return "";
  const names = formats.map((format) => JSON.stringify(format)).join(", ");
  return formats.length === 1
    ? `; format ${names} is not one ${draftName(draft)} defines, so it was not checked`
    : `; formats ${names} are not ones ${draftName(draft)} defines, so they were not checked`;
}

type CompiledOk = Extract<CompiledJsonSchema, { ok: true }>;

/**
 * Schemas compiled before, by object identity and the `draft` asked for. compileJsonSchema keeps
 * the same answer for them for as long as the object lives, so a case scored against one of them
 * is checked synchronously, without waiting for that answer again.
 */
const ready = new WeakMap<object, Map<Draft | undefined, CompiledOk>>();
/** The rationale of a valid value, made once per compiled schema. */
const validRationales = new WeakMap<CompiledOk, string>();

/** A draft as a reason names it: "draft 2020-12", "draft-07". */
const draftName = (draft: Draft): string => (draft.startsWith("draft") ? draft : `draft ${draft}`);

function checkCompiled(compiled: CompiledOk, input: JsonSchemaValidInput<JsonSchema>) {
  const check = compiled.check(input.actual, input.formats ?? "assert");
  if (check.outcome === "errored") return errored(check.reason);
  if (check.outcome === "invalid") return failed(check.reason);
  let rationale = validRationales.get(compiled);
  if (rationale === undefined) {
    rationale = `actual is valid against the JSON Schema (${draftName(compiled.draft)})${unknownFormatsNote(compiled.unknownFormats, compiled.draft)}`;
    validRationales.set(compiled, rationale);
  }
  return passed(rationale);
}

async function validateJsonSchema(
  input: JsonSchemaValidInput<JsonSchema>,
): Promise<JsonSchemaScore> {
  const options = input.draft === undefined ? {} : { draft: input.draft };
  const compiled = await compileJsonSchema(input.schema, options);
  if (!compiled.ok) return errored(compiled.reason);
  const schema = input.schema;
  if (typeof schema === "object" && schema !== null) {
    let drafts = ready.get(schema);
    if (!drafts) {
      drafts = new Map();
      ready.set(schema, drafts);
    }
    drafts.set(input.draft, compiled);
  }
  return checkCompiled(compiled, input);
}

/**
 * The input with `actual` parsed from its JSON text when `parseJson` asks for it, or the Score of
 * text that is not JSON (failed) or of an `actual` that is no text at all (errored).
 */
function parsedActual(
  input: JsonSchemaValidInput,
): { input: JsonSchemaValidInput } | { score: JsonSchemaScore } {
  if (input.parseJson !== true) return { input };
  if (typeof input.actual !== "string") {
    const got =
      input.actual === null
        ? "null"
        : Array.isArray(input.actual)
          ? "an array"
          : typeof input.actual;
    const why = `invalid input: parseJson: true takes actual as JSON text (a string), got ${got}; leave parseJson out to validate the value as it is`;
    return { score: errored(why) };
  }
  const parsed = parseJsonText(input.actual);
  return parsed.ok
    ? { input: { ...input, actual: parsed.value } }
    : { score: failed(parsed.reason) };
}

/** Whether a string fails a schema at its root while holding JSON text (`parseJson` was left out). */
function holdsJson(actual: unknown, score: JsonSchemaScore): boolean {
  if (typeof actual !== "string" || score.passed || score.errored) return false;
  if (!score.rationale?.startsWith("(root):")) return false;
  const start = actual.trimStart()[0];
  return (start === "{" || start === "[") && parseJsonText(actual).ok;
}

const PARSE_FIRST =
  "; actual is a string holding JSON text: pass parseJson: true to parse it first";

/** A failed Score of a string holding JSON text, saying to parse it. */
function withParseHint(actual: unknown, score: JsonSchemaScore): JsonSchemaScore {
  return holdsJson(actual, score)
    ? { ...score, rationale: `${score.rationale}${PARSE_FIRST}` }
    : score;
}

/** {@link jsonSchemaValid}, answered synchronously when its schema object was compiled before. */
function jsonSchemaValidNow(
  input: JsonSchemaValidInput,
): JsonSchemaScore | Promise<JsonSchemaScore> {
  // JSON text is parsed (and its option checked) in jsonSchemaValid.
  if (input.parseJson !== undefined) return jsonSchemaValid(input);
  const schema = input.schema;
  const compiled =
    typeof schema === "object" && schema !== null ? ready.get(schema)?.get(input.draft) : undefined;
  if (compiled === undefined || validatesAsStandard(schema)) return jsonSchemaValid(input);
  try {
    return withParseHint(
      input.actual,
      checkCompiled(compiled, input as JsonSchemaValidInput<JsonSchema>),
    );
  } catch (error) {
    return errored(`the validator failed: ${errorMessage(error)}`);
  }
}

/**
 * Score 1 when `actual` is valid against the schema, else 0 with the first violation: its
 * instance path, what the schema expected and what was found (`"/items/2/price: must be
 * number, got string"`). Takes full JSON Schema (drafts 2020-12, 2019-09 and 07, through
 * @hyperjump/json-schema, compiled once per schema and cached) or any Standard Schema (zod,
 * valibot, arktype…).
 *
 * A JSON Schema without `$schema` is read as draft 2020-12 unless `draft` says otherwise.
 * Formats assert by default (`formats: "annotate"` makes `format` an annotation only, as draft
 * 2020-12 reads it by default). References stay inside the schema: nothing is fetched.
 * `parseJson: true` takes `actual` as JSON text and parses it first: text that is not JSON
 * fails with where it breaks (`actual is not JSON: at line 1, column 1 (found "S"), wanted a
 * JSON value: …`), as promptfoo's `is-json` fails it.
 *
 * Never throws and never blames the value for a bad schema: an unusable schema (invalid, an
 * unsupported `$schema`, a reference outside it, a Standard Schema whose `validate` throws)
 * gives `errored: true` with a rationale starting "invalid schema:", and a misspelt option
 * (`draf`) one starting "invalid input:" that names the key meant.
 * @example
 * await jsonSchemaValid({ actual: { n: "1" }, schema: { type: "object", properties: { n: { type: "number" } } } });
 * // → { value: 0, passed: false, label: "json-schema-valid", rationale: '/n: must be number, got string' }
 */
export async function jsonSchemaValid(input: JsonSchemaValidInput): Promise<JsonSchemaScore> {
  try {
    if (typeof input !== "object" || input === null || Array.isArray(input)) {
      return errored(
        `invalid input: jsonSchemaValid takes { actual, schema, draft?, formats?, parseJson? }, got ${valueKind(input)}`,
      );
    }
    // A misspelt key (`draf`) would otherwise leave its option at the default without a word.
    const misspelt = misspeltKeysMessage(input, INPUT_KEYS_LIST);
    if (misspelt !== undefined) return errored(`invalid input: ${misspelt}`);
    // A misspelt mode would otherwise turn format checks off without a word.
    const { formats } = input;
    if (formats !== undefined && formats !== "assert" && formats !== "annotate") {
      return errored(
        `invalid option: formats must be "assert" (the default) or "annotate", got ${JSON.stringify(formats)}`,
      );
    }
    if (input.parseJson !== undefined && typeof input.parseJson !== "boolean") {
      return errored(
        `invalid option: parseJson must be true or false, got ${JSON.stringify(input.parseJson)}`,
      );
    }
    const ignored = jsonSchemaOnlyOption(input);
    if (ignored !== undefined) return errored(ignored);
    const parsed = parsedActual(input);
    if ("score" in parsed) return parsed.score;
    const { actual, schema } = parsed.input;
    const score = validatesAsStandard(schema)
      ? await validateStandard(actual, schema)
      : await validateJsonSchema(parsed.input as JsonSchemaValidInput<JsonSchema>);
    // A string parsed from JSON text (JSON in JSON) is not one that parseJson would help.
    return input.parseJson === true ? score : withParseHint(actual, score);
  } catch (error) {
    // Nothing above should throw; if something does, it is still a reason, not a crash.
    return errored(`the validator failed: ${errorMessage(error)}`);
  }
}

/**
 * Why `draft` or `formats` cannot be honoured: they read a JSON Schema, and a Standard Schema
 * (zod, valibot, arktype) validates by its own rules, so either would do nothing without a word.
 */
function jsonSchemaOnlyOption(input: JsonSchemaValidInput): string | undefined {
  const option =
    input.draft !== undefined ? "draft" : input.formats !== undefined ? "formats" : undefined;
  if (option === undefined || !validatesAsStandard(input.schema)) return undefined;
  return `invalid option: ${option} applies to a JSON Schema; this schema is a Standard Schema (zod, valibot, arktype…), which validates by its own rules: leave ${option} out, or pass its JSON Schema (z.toJSONSchema(schema) for zod)`;
}

/**
 * Validate `actual` against a Standard Schema (zod 4, valibot, arktype…) as a
 * `json-schema-valid` Score; a value that is not a Standard Schema gives an errored Score.
 * @example
 * await standardSchemaValid({ actual: 3, schema: z.string() });
 * // → { value: 0, passed: false, label: "json-schema-valid", rationale: "(root): Invalid input: expected string, received number" }
 */
export async function standardSchemaValid(
  input: JsonSchemaValidInput<StandardSchemaV1>,
): Promise<JsonSchemaScore> {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return errored(
      `invalid input: standardSchemaValid takes { actual, schema }, got ${valueKind(input)}`,
    );
  }
  if (!isStandardSchema(input.schema)) {
    return errored("invalid schema: not a Standard Schema (it has no `~standard.validate`)");
  }
  return validateStandard(input.actual, input.schema);
}

/**
 * The `eval.json-schema-valid` tool contract. Its `schema` is a JSON Schema (over JSON) or,
 * in process, any Standard Schema, arktype's callable schemas included. Any other value is
 * passed on, so the scorer answers it with an errored Score instead of the call throwing.
 */
export const jsonSchemaValidTool = defineTool({
  id: "eval.json-schema-valid",
  description:
    "Score 1 when actual is valid against a JSON Schema (2020-12 unless $schema or draft says 2019-09 or draft-07), else 0 with the first violation, its path, what was expected and what was found. With parseJson, actual is JSON text, parsed first: text that is not JSON scores 0, saying where it breaks.",
  inputSchema: scorerInputSchema({
    actual: z.unknown(),
    // Accepts any value and keeps it as it is (no copy), so compiled validators are found by identity.
    schema: z.custom<JsonSchema | StandardSchemaV1>(() => true),
    draft: z.enum(DRAFTS as [Draft, ...Draft[]]).optional(),
    formats: z.enum(["assert", "annotate"]).optional(),
    parseJson: z.boolean().optional(),
  }),
  outputSchema: jsonSchemaScoreSchema,
});

/** The implementation of `eval.json-schema-valid`, bundled in `evalScorersProvider`. */
export const jsonSchemaValidImpl = implementBuiltInTool(
  jsonSchemaValidTool,
  (input) => jsonSchemaValidNow(input as JsonSchemaValidInput),
  (input) =>
    isObjectInput(input) &&
    hasOnlyKeys(input, INPUT_KEYS) &&
    Object.hasOwn(input, "actual") &&
    Object.hasOwn(input, "schema") &&
    (input.draft === undefined || DRAFTS.includes(input.draft as Draft)) &&
    (input.formats === undefined || input.formats === "assert" || input.formats === "annotate") &&
    (input.parseJson === undefined || typeof input.parseJson === "boolean"),
);
