// One pass over a JSON Schema before it is compiled: the resources it declares (so a
// validator's keyword locations can be read back as schema values), the references it makes
// (so a reference to a document outside the schema is an errored score, never a fetch), and
// the formats it names.
import type { Draft } from "./json-schema-drafts.js";

/** What the walk found in a schema. */
export interface SchemaMap {
  /** Every schema resource by its absolute URI without fragment: the root and each `$id`. */
  readonly resources: ReadonlyMap<string, unknown>;
  /** Every `$ref`, `$dynamicRef` and `$schema`, resolved against its base URI. */
  readonly references: readonly { readonly written: string; readonly resolved: string }[];
  /** Every `format` named in a subschema. */
  readonly formats: ReadonlySet<string>;
}

// Keywords whose value is a schema, an array of schemas, or a map of names to schemas.
const SCHEMA = new Set([
  "additionalItems",
  "additionalProperties",
  "contains",
  "contentSchema",
  "else",
  "if",
  "items",
  "not",
  "propertyNames",
  "then",
  "unevaluatedItems",
  "unevaluatedProperties",
]);
const SCHEMA_ARRAY = new Set(["allOf", "anyOf", "oneOf", "prefixItems", "items"]);
const SCHEMA_MAP = new Set([
  "$defs",
  "definitions",
  "dependentSchemas",
  "dependencies",
  "patternProperties",
  "properties",
]);

function resolve(reference: string, base: string): string {
  try {
    return new URL(reference, base).href;
  } catch {
    return reference;
  }
}

/** A URI without its fragment. */
export function withoutFragment(uri: string): string {
  const hash = uri.indexOf("#");
  return hash === -1 ? uri : uri.slice(0, hash);
}

/**
 * Walk a schema as the given draft reads it. Only schema positions are visited, so an `$id`
 * inside `const`, `enum`, `default` or `examples` is data, not a resource.
 */
export function mapSchema(schema: unknown, retrievalUri: string, draft: Draft): SchemaMap {
  const resources = new Map<string, unknown>();
  const references: { written: string; resolved: string }[] = [];
  const formats = new Set<string>();
  resources.set(retrievalUri, schema);
  const seen = new Set<object>();

  const visit = (node: unknown, base: string): void => {
    if (typeof node !== "object" || node === null || Array.isArray(node) || seen.has(node)) return;
    seen.add(node);
    const record = node as Record<string, unknown>;
    const hasRef = typeof record.$ref === "string";
    // Before 2019-09 a `$ref` makes its siblings (its `$id` included) ignored.
    const refOnly = draft === "draft-07" && hasRef;
    if (!refOnly && typeof record.$id === "string" && !record.$id.startsWith("#")) {
      base = withoutFragment(resolve(record.$id, base));
      resources.set(base, node);
    }
    for (const keyword of ["$ref", "$dynamicRef", "$recursiveRef", "$schema"]) {
      const written = record[keyword];
      if (typeof written === "string")
        references.push({ written, resolved: resolve(written, base) });
    }
    if (refOnly) return;
    if (typeof record.format === "string") formats.add(record.format);
    for (const [keyword, value] of Object.entries(record)) {
      if (SCHEMA.has(keyword) && !Array.isArray(value)) visit(value, base);
      if (SCHEMA_ARRAY.has(keyword) && Array.isArray(value)) {
        for (const item of value) visit(item, base);
      }
      if (SCHEMA_MAP.has(keyword) && typeof value === "object" && value !== null) {
        for (const item of Object.values(value)) visit(item, base);
      }
    }
  };
  visit(schema, retrievalUri);
  return { resources, references, formats };
}

function decodeSegment(segment: string): string {
  let decoded = segment;
  try {
    if (segment.includes("%")) decoded = decodeURIComponent(segment);
  } catch {
    // Not percent-encoded after all: keep it as written.
  }
  return decoded.replaceAll("~1", "/").replaceAll("~0", "~");
}

/** The segments of a JSON Pointer held in a URI fragment (`#/a/b%20c` → `["a", "b c"]`). */
export function pointerSegments(fragment: string): string[] {
  const pointer = fragment.startsWith("#") ? fragment.slice(1) : fragment;
  if (pointer === "") return [];
  return pointer.slice(1).split("/").map(decodeSegment);
}

/** Follow pointer segments into a value; `undefined` when the path does not exist. */
export function at(value: unknown, segments: readonly string[]): unknown {
  let current = value;
  for (const segment of segments) {
    if (typeof current !== "object" || current === null) return undefined;
    if (!Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}
