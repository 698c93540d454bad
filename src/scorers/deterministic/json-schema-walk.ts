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
  /** Every subschema (an object) and its JSON Pointer from the root (`""` for the root). */
  readonly locations: ReadonlyMap<object, string>;
  /** Every anchor (`$anchor`, `$dynamicAnchor`, draft-07's `"$id": "#name"`) by its absolute URI. */
  readonly anchors: ReadonlyMap<string, object>;
  /** The `$ref` of each subschema that is read, resolved against its base URI. */
  readonly refs: ReadonlyMap<object, string>;
  /** The subschemas applied to the same place in the value as each subschema (`allOf`, `not`, …), `$ref` aside. */
  readonly inPlace: ReadonlyMap<object, readonly unknown[]>;
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
// Keywords whose schemas apply to the value itself, not to a part of it.
const IN_PLACE = new Set(["not", "if", "then", "else"]);
const IN_PLACE_ARRAY = new Set(["allOf", "anyOf", "oneOf"]);
const IN_PLACE_MAP = new Set(["dependentSchemas", "dependencies"]);

/** A key as a JSON Pointer segment. */
const segment = (key: string | number) => String(key).replaceAll("~", "~0").replaceAll("/", "~1");

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
  const map = {
    resources: new Map<string, unknown>([[retrievalUri, schema]]),
    references: [] as { written: string; resolved: string }[],
    formats: new Set<string>(),
    locations: new Map<object, string>(),
    anchors: new Map<string, object>(),
    refs: new Map<object, string>(),
    inPlace: new Map<object, unknown[]>(),
  };
  const visit = (node: unknown, base: string, pointer: string): void => {
    if (typeof node !== "object" || node === null || Array.isArray(node)) return;
    if (map.locations.has(node)) return;
    map.locations.set(node, pointer);
    const record = node as Record<string, unknown>;
    const hasRef = typeof record.$ref === "string";
    // Before 2019-09 a `$ref` makes its siblings (its `$id` included) ignored.
    const refOnly = draft === "draft-07" && hasRef;
    if (!refOnly) base = declare(map, node, base, draft);
    for (const keyword of ["$ref", "$dynamicRef", "$recursiveRef", "$schema"]) {
      const written = record[keyword];
      if (typeof written === "string")
        map.references.push({ written, resolved: resolve(written, base) });
    }
    if (hasRef) map.refs.set(node, resolve(record.$ref as string, base));
    if (refOnly) return;
    if (typeof record.format === "string") map.formats.add(record.format);
    const inPlace = inPlaceSchemas(record);
    if (inPlace.length > 0) map.inPlace.set(node, inPlace);
    for (const [keyword, value] of Object.entries(record)) {
      const at = `${pointer}/${segment(keyword)}`;
      if (SCHEMA.has(keyword) && !Array.isArray(value)) visit(value, base, at);
      if (SCHEMA_ARRAY.has(keyword) && Array.isArray(value)) {
        for (let index = 0; index < value.length; index++)
          visit(value[index], base, `${at}/${index}`);
      }
      if (SCHEMA_MAP.has(keyword) && typeof value === "object" && value !== null) {
        for (const [name, item] of Object.entries(value))
          visit(item, base, `${at}/${segment(name)}`);
      }
    }
  };
  visit(schema, retrievalUri, "");
  return map;
}

/**
 * Where a subschema writes `value` under one of `keywords` (or, for `patternProperties`, as one of
 * its keys): the JSON Pointer of that place, or undefined when none does.
 * @example
 * placeOf(map, ["$ref"], "#/%%%"); // → "/properties/a/$ref"
 */
export function placeOf(
  map: Pick<SchemaMap, "locations">,
  keywords: readonly string[],
  value: string,
): string | undefined {
  for (const [node, pointer] of map.locations) {
    const record = node as Record<string, unknown>;
    for (const keyword of keywords) {
      const written = record[keyword];
      if (written === value) return `${pointer}/${segment(keyword)}`;
      const isMap = typeof written === "object" && written !== null;
      if (keyword === "patternProperties" && isMap && Object.hasOwn(written, value))
        return `${pointer}/${keyword}/${segment(value)}`;
    }
  }
  return undefined;
}

/** Record the resource (`$id`) and anchors a subschema declares; its base URI. */
function declare(
  map: { resources: Map<string, unknown>; anchors: Map<string, object> },
  node: object,
  base: string,
  draft: Draft,
): string {
  const { $id, $anchor, $dynamicAnchor } = node as Record<string, unknown>;
  if (typeof $id === "string" && !$id.startsWith("#")) {
    base = withoutFragment(resolve($id, base));
    map.resources.set(base, node);
  }
  if (draft === "draft-07" && typeof $id === "string" && $id.startsWith("#") && $id.length > 1)
    map.anchors.set(`${base}${$id}`, node);
  for (const anchor of [$anchor, $dynamicAnchor])
    if (typeof anchor === "string") map.anchors.set(`${base}#${anchor}`, node);
  return base;
}

/** The subschemas a subschema applies to the value itself (`allOf`, `anyOf`, `not`, `then`, …). */
function inPlaceSchemas(record: Record<string, unknown>): unknown[] {
  const found: unknown[] = [];
  for (const [keyword, value] of Object.entries(record)) {
    if (IN_PLACE.has(keyword)) found.push(value);
    else if (IN_PLACE_ARRAY.has(keyword) && Array.isArray(value)) found.push(...value);
    else if (IN_PLACE_MAP.has(keyword) && typeof value === "object" && value !== null)
      found.push(...Object.values(value));
  }
  return found;
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
