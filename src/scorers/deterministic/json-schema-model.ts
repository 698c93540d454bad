/** The shapes of the JSON Schema checker, shared by its light front and its engine. */

import type { Draft } from "./json-schema-drafts.js";

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
  readonly draft?: Draft | undefined;
  /** Whether `format` fails a value (`"assert"`, the default) or only annotates it. */
  readonly formats?: FormatMode | undefined;
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
      /** Formats the schema names that its draft does not define; they are never checked. */
      readonly unknownFormats: readonly string[];
      /** Check a value. Never throws. */
      check(actual: unknown, formats?: FormatMode): JsonSchemaCheck;
    }
  | { readonly ok: false; readonly reason: string };

/** The formats drafts 2020-12 and 2019-09 define (draft-07 all but two); checked when formats assert. */
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

/** Formats draft 2019-09 added; draft-07 does not define them, so they are not checked there. */
const LATER_FORMATS: ReadonlySet<string> = new Set(["duration", "uuid"]);

/** Whether `draft` defines `format` (and so checks it). */
export function definesFormat(draft: Draft, format: string): boolean {
  return KNOWN_FORMATS.has(format) && !(draft === "draft-07" && LATER_FORMATS.has(format));
}
