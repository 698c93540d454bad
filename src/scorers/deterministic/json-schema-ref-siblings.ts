// Draft-07 ignores the keywords beside a `$ref`, but a JSON Pointer still reaches into them: the
// shape zod-to-json-schema and typescript-json-schema emit is `{ "$ref": "#/definitions/X",
// "definitions": { … } }`. The validator reads a `$ref` object as opaque, so it found no
// `/definitions` there ("Value at '/definitions' is undefined"). Such an object is rewritten
// before compiling as `{ "allOf": [{ "$ref": … }] }` beside the keywords that assert nothing
// (`definitions`, annotations, unknown keys), so the targets are where they were and the
// keywords draft-07 ignores still assert nothing.
import type { JsonSchema } from "./json-schema-model.js";
import { pointerSegments, withoutFragment } from "./json-schema-walk.js";

/** Draft-07's keywords that assert or change the base URI: left out beside a `$ref`. */
const ASSERTING = new Set([
  "$id",
  "$schema",
  "type",
  "enum",
  "const",
  "multipleOf",
  "maximum",
  "exclusiveMaximum",
  "minimum",
  "exclusiveMinimum",
  "maxLength",
  "minLength",
  "pattern",
  "format",
  "items",
  "additionalItems",
  "maxItems",
  "minItems",
  "uniqueItems",
  "contains",
  "maxProperties",
  "minProperties",
  "required",
  "properties",
  "patternProperties",
  "additionalProperties",
  "dependencies",
  "propertyNames",
  "if",
  "then",
  "else",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "contentMediaType",
  "contentEncoding",
]);
/** Keywords whose values are data, never schemas: a `$ref` or `$id` there is text. */
const DATA = new Set(["enum", "const", "default", "examples"]);

type Path = readonly string[];

/** What one pass over a draft-07 schema found: where each base URI, anchor and `$ref` is. */
interface Found {
  readonly resources: Map<string, Path>;
  readonly anchors: Map<string, Path>;
  readonly references: string[];
  /** The objects whose `$ref` has siblings. */
  readonly refObjects: Path[];
}

function resolve(reference: string, base: string): string {
  try {
    return new URL(reference, base).href;
  } catch {
    return reference;
  }
}

function find(schema: JsonSchema, retrievalUri: string): Found {
  const found: Found = {
    resources: new Map([[retrievalUri, []]]),
    anchors: new Map(),
    references: [],
    refObjects: [],
  };
  const seen = new Set<object>();
  const visit = (node: unknown, path: Path, base: string): void => {
    if (typeof node !== "object" || node === null || seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) {
      for (const [index, item] of node.entries()) visit(item, [...path, String(index)], base);
      return;
    }
    const record = node as Record<string, unknown>;
    const ref = record.$ref;
    if (typeof ref === "string") {
      found.references.push(resolve(ref, base));
      if (Object.keys(record).length > 1) found.refObjects.push(path);
    } else if (typeof record.$id === "string") {
      // Beside a `$ref`, `$id` is ignored too.
      const id = resolve(record.$id, base);
      if (!record.$id.startsWith("#")) {
        base = withoutFragment(id);
        found.resources.set(base, path);
      }
      if (id.includes("#") && !id.endsWith("#")) found.anchors.set(id, path);
    }
    for (const [key, value] of Object.entries(record)) {
      if (!DATA.has(key)) visit(value, [...path, key], base);
    }
  };
  visit(schema, [], retrievalUri);
  return found;
}

/** Where in the document a resolved reference points, when it is found there. */
function targetPath(reference: string, found: Found): Path | undefined {
  const hash = reference.indexOf("#");
  const fragment = hash === -1 ? "" : reference.slice(hash + 1);
  if (fragment === "" || fragment.startsWith("/")) {
    const resource = found.resources.get(withoutFragment(reference));
    return resource && [...resource, ...pointerSegments(fragment)];
  }
  return found.anchors.get(reference);
}

const startsWith = (path: Path, prefix: Path): boolean =>
  path.length > prefix.length && prefix.every((segment, index) => path[index] === segment);

/** The `$ref` objects to rewrite: those some reference reaches into past their `$ref`. */
function reachedInto(found: Found): { rewrite: Path[]; hidden: string | undefined } {
  const targets = found.references.flatMap((reference) => {
    const path = targetPath(reference, found);
    return path ? [path] : [];
  });
  const rewrite: Path[] = [];
  let hidden: string | undefined;
  for (const object of found.refObjects) {
    const inside = targets.filter((target) => startsWith(target, object));
    const siblings = inside.map((target) => target[object.length]!).filter((key) => key !== "$ref");
    if (siblings.length === 0) continue;
    const asserting = siblings.find((key) => ASSERTING.has(key));
    if (asserting !== undefined) {
      const at = object.length === 0 ? "the root" : `/${object.join("/")}`;
      hidden ??= `a reference points into "${asserting}" beside the "$ref" at ${at}, which draft-07 ignores: move what it points to under "definitions", or use draft 2019-09 or later`;
    } else rewrite.push(object);
  }
  return { rewrite, hidden };
}

function rewriteAt(copy: Record<string, unknown>, path: Path): void {
  let node = copy;
  for (const segment of path) node = node[segment] as Record<string, unknown>;
  const ref = node.$ref;
  for (const key of Object.keys(node)) {
    const keepSchema = path.length === 0 && key === "$schema";
    if (key === "$ref" || (ASSERTING.has(key) && !keepSchema)) delete node[key];
  }
  node.allOf = [{ $ref: ref }];
}

/**
 * A draft-07 schema whose `$ref` objects keep reference targets beside their `$ref`, rewritten
 * so the validator finds them and reads the schema as draft-07 does; the schema itself when it
 * has none. A target inside an asserting keyword beside a `$ref` cannot be kept without making
 * that keyword assert: its `$ref` object is left as it is, and `hidden` says why and what to do,
 * for the validator's error when it cannot resolve that reference.
 * @example
 * exposeRefSiblings({ $ref: "#/definitions/A", definitions: { A: { type: "integer" } } }, base);
 * // → { schema: { allOf: [{ $ref: "#/definitions/A" }], definitions: { A: { type: "integer" } } } }
 */
export function exposeRefSiblings(
  schema: JsonSchema,
  retrievalUri: string,
): { schema: JsonSchema; hidden?: string } {
  if (typeof schema !== "object") return { schema };
  const { rewrite, hidden } = reachedInto(find(schema, retrievalUri));
  let rewritten: JsonSchema = schema;
  if (rewrite.length > 0) {
    const copy = structuredClone(schema) as Record<string, unknown>;
    for (const path of rewrite) rewriteAt(copy, path);
    rewritten = copy;
  }
  return hidden === undefined ? { schema: rewritten } : { schema: rewritten, hidden };
}
