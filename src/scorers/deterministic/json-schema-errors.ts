// Words for a failed validation: the instance path, what the schema expected, what was found.
import { pluralNoun } from "../../plural.js";
import { codePointCount } from "./code-points.js";
import { at, pointerSegments, withoutFragment } from "./json-schema-walk.js";
import { clip, show } from "./preview.js";

/** One error of the validator's basic output. */
export interface ValidationError {
  readonly keyword: string;
  readonly absoluteKeywordLocation: string;
  readonly instanceLocation: string;
}

/** A failed keyword with the failures of its subschemas: a unit of the validator's detailed output. */
export interface DetailedError extends ValidationError {
  readonly errors?: readonly DetailedError[];
}

/** Where the words come from: the schema's resources by URI, and the value validated. */
export interface ErrorContext {
  readonly resources: ReadonlyMap<string, unknown>;
  readonly instance: unknown;
  /**
   * The validator's detailed output of the same value, asked for only when a oneOf or anyOf
   * failed: it tells which branch each failure is in, across references.
   */
  readonly detailed?: (() => readonly DetailedError[]) | undefined;
}

const MAX_SHOWN_VALUES = 5;
/** A property name in a path or a list is cut past this: a key may be megabytes long. */
const MAX_SEGMENT = 40;
const MAX_DETAILS = 3;

/** The JSON type of a value, as `type` names it. */
export function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function list(values: readonly unknown[]): string {
  const shown = values.slice(0, MAX_SHOWN_VALUES).map(show);
  return values.length > MAX_SHOWN_VALUES ? `${shown.join(", ")}, …` : shown.join(", ");
}

function keywordName(keyword: string): string {
  const tail = keyword.slice(keyword.lastIndexOf("/") + 1);
  return tail.slice(tail.indexOf("#") + 1);
}

interface Located {
  readonly name: string;
  /** The keyword's value in the schema, and the schema object holding it. */
  readonly value: unknown;
  readonly parent: Record<string, unknown> | undefined;
  /** The last pointer segment of the keyword's location (the keyword, or a `false` subschema's place). */
  readonly place: string | undefined;
  /** The one before it (`properties` for `properties/name`). */
  readonly placeParent: string | undefined;
  readonly path: readonly string[];
  readonly found: unknown;
  /** Set when the value checked is a property name (`propertyNames`), not a property's value. */
  readonly propertyName: string | undefined;
}

function locate(error: ValidationError, context: ErrorContext): Located {
  const location = error.absoluteKeywordLocation;
  const hash = location.indexOf("#");
  const segments = hash === -1 ? [] : pointerSegments(location.slice(hash));
  const resource = context.resources.get(withoutFragment(location));
  const value = resource === undefined ? undefined : at(resource, segments);
  const parent = resource === undefined ? undefined : at(resource, segments.slice(0, -1));
  // The validator marks a property name (what `propertyNames` checks) with "#*".
  const isName = error.instanceLocation.startsWith("#*");
  const instancePath = pointerSegments(
    isName ? error.instanceLocation.slice(2) : error.instanceLocation,
  );
  const path = isName ? instancePath.slice(0, -1) : instancePath;
  const propertyName = isName ? instancePath.at(-1) : undefined;
  return {
    name: keywordName(error.keyword),
    value,
    parent:
      typeof parent === "object" && parent !== null && !Array.isArray(parent)
        ? (parent as Record<string, unknown>)
        : undefined,
    place: segments.at(-1),
    placeParent: segments.at(-2),
    path,
    found: isName ? propertyName : at(context.instance, path),
    propertyName,
  };
}

// Control characters in a property name would break the reason's line; write them escaped.
function printable(segment: string): string {
  const control = [...segment].some((char) => char.charCodeAt(0) < 0x20);
  return control ? JSON.stringify(segment).slice(1, -1) : segment;
}

function pointer(path: readonly string[]): string {
  if (path.length === 0) return "(root)";
  return path
    .map(
      (segment) =>
        `/${printable(clip(segment, MAX_SEGMENT)).replaceAll("~", "~0").replaceAll("/", "~1")}`,
    )
    .join("");
}

function ownKeys(value: unknown): Set<string> {
  return typeof value === "object" && value !== null ? new Set(Object.keys(value)) : new Set();
}

function countOf(value: unknown): number {
  if (typeof value === "string") return codePointCount(value);
  if (Array.isArray(value)) return value.length;
  if (typeof value === "object" && value !== null) return Object.keys(value).length;
  return 0;
}

const BOUNDS: Record<string, [string, string]> = {
  minimum: [">=", ""],
  maximum: ["<=", ""],
  exclusiveMinimum: [">", ""],
  exclusiveMaximum: ["<", ""],
};
const SIZES: Record<string, [string, string]> = {
  minLength: ["fewer", "characters"],
  maxLength: ["more", "characters"],
  minItems: ["fewer", "items"],
  maxItems: ["more", "items"],
  minProperties: ["fewer", "properties"],
  maxProperties: ["more", "properties"],
};

/** A `false` subschema failed: say what it forbids, at the instance path it forbids it. */
function falseSchema(error: Located): { path: readonly string[]; text: string } {
  if (error.propertyName !== undefined) {
    return { path: error.path, text: `must NOT have property ${show(error.propertyName)}` };
  }
  const last = error.path.at(-1) ?? "";
  const parentPath = error.path.slice(0, -1);
  const place = error.place;
  if (place === "additionalProperties") {
    return { path: parentPath, text: `must NOT have additional properties (${show(last)})` };
  }
  if (place === "unevaluatedProperties") {
    return { path: parentPath, text: `must NOT have unevaluated properties (${show(last)})` };
  }
  if (place === "items" || place === "additionalItems") {
    const before = error.parent?.prefixItems ?? error.parent?.items;
    const allowed = Array.isArray(before) ? before.length : 0;
    return { path: parentPath, text: `must NOT have more than ${allowed} items` };
  }
  if (place === "unevaluatedItems") {
    return { path: parentPath, text: `must NOT have unevaluated items (index ${last})` };
  }
  if (error.placeParent === "properties" || error.placeParent === "patternProperties") {
    return { path: error.path, text: "must NOT be present (its schema is false)" };
  }
  return { path: error.path, text: "boolean schema is false" };
}

function describeKeyword(error: Located): string {
  const { name, value, found } = error;
  const got = `, got ${show(found)}`;
  const bound = BOUNDS[name];
  if (bound && typeof value === "number") return `must be ${bound[0]} ${value}${got}`;
  const size = SIZES[name];
  if (size && typeof value === "number") {
    return `must NOT have ${size[0]} than ${value} ${size[1]}, got ${countOf(found)}`;
  }
  switch (name) {
    case "type": {
      const types = Array.isArray(value) ? value.map(String) : [String(value)];
      return `must be ${types.join(" or ")}, got ${jsonType(found)}`;
    }
    case "required": {
      const present = ownKeys(found);
      const missing = Array.isArray(value)
        ? value.filter((name) => !present.has(String(name)))
        : [];
      if (missing.length === 0) return "must have its required properties";
      const names = missing
        .slice(0, MAX_SHOWN_VALUES)
        .map((name) => `'${clip(String(name), MAX_SEGMENT)}'`)
        .join(", ");
      const more = missing.length > MAX_SHOWN_VALUES ? ", …" : "";
      return missing.length === 1
        ? `must have required property ${names}`
        : `must have required properties ${names}${more}`;
    }
    case "enum":
      if (Array.isArray(value) && value.length === 0)
        return `allows no value (its enum is empty)${got}`;
      return Array.isArray(value)
        ? `must be equal to one of the allowed values: ${list(value)}${got}`
        : `must be equal to one of the allowed values${got}`;
    case "const":
      return `must be equal to constant ${show(value)}${got}`;
    case "multipleOf":
      return `must be multiple of ${String(value)}${got}`;
    case "pattern":
      return `must match pattern ${show(value)}${got}`;
    case "format":
      return `must match format ${show(value)}${got}`;
    case "uniqueItems": {
      const pair = duplicatePair(found);
      return pair ? `must NOT have duplicate items (${pair})` : "must NOT have duplicate items";
    }
    case "contains":
    case "minContains":
    case "maxContains": {
      const least = Number(error.parent?.minContains ?? 1);
      const most = error.parent?.maxContains;
      const range =
        most === undefined ? `at least ${least}` : `at least ${least} and at most ${String(most)}`;
      const noun = pluralNoun(most === undefined ? least : Number(most), "item");
      return `must contain ${range} ${noun} valid against contains`;
    }
    case "dependentRequired":
    case "dependencies": {
      const present = ownKeys(found);
      if (typeof value === "object" && value !== null) {
        for (const [trigger, needed] of Object.entries(value)) {
          if (!present.has(trigger) || !Array.isArray(needed)) continue;
          const missing = needed.find((name) => !present.has(String(name)));
          if (missing !== undefined) {
            return `must have property '${String(missing)}' when property '${trigger}' is present`;
          }
        }
      }
      return "must have the properties its present properties depend on";
    }
    case "oneOf":
      return "must match exactly one schema in oneOf";
    case "anyOf":
      return "must match a schema in anyOf";
    case "not":
      return "must NOT be valid against the schema in not";
    case "propertyNames":
      return "must have valid property names";
    default:
      return `must pass "${name}"${got}`;
  }
}

/** A value as JSON Schema compares it: objects by content, whatever the order of their keys. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(record[key])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The first two items uniqueItems finds equal, in words ("items 0 and 2 are equal"). */
function duplicatePair(found: unknown): string | undefined {
  if (!Array.isArray(found)) return undefined;
  try {
    const seen = new Map<string, number>();
    for (let index = 0; index < found.length; index++) {
      const key = canonical(found[index]);
      const first = seen.get(key);
      if (first !== undefined) return `items ${first} and ${index} are equal`;
      seen.set(key, index);
    }
  } catch {
    // Items nested too deep to compare here: the reason goes without the pair.
  }
  return undefined;
}

/** Keywords whose failure is explained by the errors of their subschemas. */
const COMBINATORS = new Set(["oneOf", "anyOf"]);
/** Keywords that only pass their subschemas' failures on; the subschema's error says more. */
const PASS_THROUGH = new Set([
  "allOf",
  "then",
  "else",
  "properties",
  "patternProperties",
  "additionalProperties",
  "items",
  "prefixItems",
  "dependentSchemas",
  "unevaluatedProperties",
  "unevaluatedItems",
  "$ref",
  "$dynamicRef",
  "$recursiveRef",
]);

function words(error: Located): { path: readonly string[]; text: string } {
  if (error.name === "validate") return falseSchema(error);
  const text = describeKeyword(error);
  if (error.propertyName === undefined) return { path: error.path, text };
  return { path: error.path, text: `property name ${show(error.propertyName)} ${text}` };
}

function isInside(inner: ValidationError, outer: ValidationError): boolean {
  return inner.absoluteKeywordLocation.startsWith(`${outer.absoluteKeywordLocation}/`);
}

/** The detailed output's unit of a failed keyword, found by its place in the schema and the value. */
function findUnit(
  units: readonly DetailedError[],
  wanted: ValidationError,
): DetailedError | undefined {
  for (const unit of units) {
    if (
      unit.absoluteKeywordLocation === wanted.absoluteKeywordLocation &&
      unit.instanceLocation === wanted.instanceLocation
    ) {
      return unit;
    }
    const inside = unit.errors ? findUnit(unit.errors, wanted) : undefined;
    if (inside) return inside;
  }
  return undefined;
}

/** References as the detailed output names them (the basic output leaves them out). */
const REFERENCES = new Set(["ref", "dynamicRef", "recursiveRef"]);

/** The first failure of a branch, past the keywords that only pass a subschema's failure on. */
function firstLeaf(unit: DetailedError): DetailedError {
  let leaf = unit;
  for (;;) {
    const name = keywordName(leaf.keyword);
    const inner = leaf.errors?.[0];
    if (!inner || !(PASS_THROUGH.has(name) || REFERENCES.has(name))) return leaf;
    leaf = inner;
  }
}

/**
 * What follows a failed oneOf or anyOf: the branches a oneOf matches when it matches more than
 * one (`, but matches 2 of its 3 (oneOf/0 and oneOf/2)`), else why each branch failed, in brackets.
 */
function combinatorDetails(
  unit: DetailedError,
  located: Located,
  at: string,
  context: ErrorContext,
): string {
  // A failure inside branch i is at <combinator>/i/…, a false branch at <combinator>/i.
  const prefix = `${unit.absoluteKeywordLocation}/`;
  const failing = new Map<string, DetailedError>();
  for (const child of unit.errors ?? []) {
    const location = child.absoluteKeywordLocation;
    if (!location.startsWith(prefix)) continue;
    const branch = location.slice(prefix.length).split("/")[0] ?? "";
    if (!failing.has(branch)) failing.set(branch, child);
  }
  const branches = Array.isArray(located.value) ? located.value.length : 0;
  const matched = [...Array(branches).keys()].filter((i) => !failing.has(String(i)));
  if (located.name === "oneOf" && matched.length > 1) {
    const names = matched.slice(0, MAX_SHOWN_VALUES).map((i) => `oneOf/${i}`);
    const shown =
      matched.length > MAX_SHOWN_VALUES
        ? `${names.join(", ")}, …`
        : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
    return `, but matches ${matched.length} of its ${branches} (${shown})`;
  }
  const details = [...failing.values()].slice(0, MAX_DETAILS).map((child) => {
    const said = words(locate(firstLeaf(child), context));
    return pointer(said.path) === at ? said.text : `${pointer(said.path)}: ${said.text}`;
  });
  if (failing.size > MAX_DETAILS) details.push("…");
  return details.length === 0 ? "" : ` (${details.join("; ")})`;
}

/**
 * Word the first violation: `"/items/2/price: must be number, got string"`. A failed oneOf or
 * anyOf is followed by the reasons its branches failed, in brackets.
 */
export function describeErrors(errors: readonly ValidationError[], context: ErrorContext): string {
  let index = 0;
  // Skip wrappers whose own failure is only that a subschema failed.
  while (index < errors.length - 1) {
    const current = errors[index]!;
    const name = keywordName(current.keyword);
    if (!PASS_THROUGH.has(name) || !isInside(errors[index + 1]!, current)) break;
    index++;
  }
  const head = errors[index];
  if (!head) return "(root): does not match the schema";
  const located = locate(head, context);
  const { path, text } = words(located);
  const first = `${pointer(path)}: ${text}`;
  if (!COMBINATORS.has(located.name)) return first;
  const unit = context.detailed ? findUnit(context.detailed(), head) : undefined;
  if (unit) return first + combinatorDetails(unit, located, pointer(path), context);
  const inner = errors.slice(index + 1).filter((error) => isInside(error, head));
  if (inner.length === 0) return first;
  const details = inner.slice(0, MAX_DETAILS).map((error) => {
    const said = words(locate(error, context));
    const samePath = pointer(said.path) === pointer(path);
    return samePath ? said.text : `${pointer(said.path)}: ${said.text}`;
  });
  if (inner.length > MAX_DETAILS) details.push("…");
  return `${first} (${details.join("; ")})`;
}

/** Word why a schema fails its draft's meta-schema: the place in the schema and the value there. */
export function describeSchemaErrors(
  errors: readonly ValidationError[],
  schema: unknown,
  draft: string,
): string {
  // The deepest place is the most precise one; ties keep the first.
  let chosen: ValidationError | undefined;
  let depth = -1;
  for (const error of errors) {
    const segments = pointerSegments(error.instanceLocation).length;
    if (segments > depth) {
      chosen = error;
      depth = segments;
    }
  }
  // "draft 2020-12" but "draft-07", as the drafts name themselves.
  const named = draft.startsWith("draft") ? draft : `draft ${draft}`;
  if (!chosen) return `it does not match the ${named} meta-schema`;
  const path = pointerSegments(chosen.instanceLocation);
  const rule = keywordName(chosen.keyword);
  return `${pointer(path)} is ${show(at(schema, path))}, which the ${named} meta-schema does not allow (${rule === "validate" ? "false schema" : rule})`;
}
