// A quick yes for the common case: most schemas a suite scores against are plain descriptions of
// data (types, required and allowed properties, items, bounds, enums), and most values are valid.
// Such a schema is compiled here into a function that walks the value once and says "valid" for
// certain; anything else (an invalid value, a value that is not JSON, a keyword outside that set)
// is answered by the full validator, which also writes the reason. The quick check never says
// "invalid": it only ever saves work, never decides a failure.

/** Whether a value is JSON and valid against the schema; false means "ask the full validator". */
export type QuickCheck = (value: unknown) => boolean;

/** Node check: `depth` bounds the walk (a cycle, or a value deeper than the validator follows). */
type Check = (value: unknown, depth: number) => boolean;

const MAX_DEPTH = 512;

/** Keywords that carry no assertion about the value (with no `$ref` in the schema, ids and definitions are never reached). */
const IGNORED = new Set([
  "title",
  "description",
  "default",
  "examples",
  "$comment",
  "deprecated",
  "readOnly",
  "writeOnly",
  "$id",
  "$anchor",
  "$defs",
  "definitions",
]);

/** Keywords this compiler asserts, each with the same meaning in drafts 2020-12, 2019-09 and 07. */
const ASSERTED = new Set([
  "type",
  "enum",
  "const",
  "required",
  "properties",
  "additionalProperties",
  "items",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minProperties",
  "maxProperties",
]);

/**
 * The quick check of a schema, or undefined when it uses anything outside the keywords above
 * (references, combinators, conditionals, patterns, formats, `multipleOf`, tuples, another
 * `$schema` inside it…): those schemas always go to the full validator.
 */
export function compileQuickCheck(schema: unknown): QuickCheck | undefined {
  const check = compileNode(schema, true);
  return check && ((value) => check(value, 0));
}

function compileNode(schema: unknown, root: boolean): Check | undefined {
  if (schema === true) return isJson;
  if (schema === false) return never;
  if (!isPlainObject(schema)) return undefined;
  const s = schema as Record<string, unknown>;
  const parts: Check[] = [];
  for (const key of Object.keys(s)) {
    // The root's dialect was read when the schema compiled; one inside it may change the rules.
    if (key === "$schema" && root) continue;
    if (IGNORED.has(key)) continue;
    if (!ASSERTED.has(key)) return undefined;
  }
  const type = typeCheck(s.type);
  if (type === undefined) return undefined;
  if (type) parts.push(type);
  if (s.enum !== undefined) {
    if (!Array.isArray(s.enum)) return undefined;
    const options = s.enum;
    parts.push((value) => options.some((option) => jsonEqual(option, value)));
  }
  if ("const" in s) {
    const constant = s.const;
    parts.push((value) => jsonEqual(constant, value));
  }
  const numbers = numberCheck(s);
  const strings = stringCheck(s);
  const arrays = arrayCheck(s);
  const objects = objectCheck(s);
  if (!numbers || !strings || !arrays || !objects) return undefined;
  return (value, depth) => {
    if (depth > MAX_DEPTH) return false;
    for (const part of parts) if (!part(value, depth)) return false;
    switch (typeof value) {
      case "number":
        return Number.isFinite(value) && numbers(value, depth);
      case "string":
        return strings(value, depth);
      case "boolean":
        return true;
      case "object":
        if (value === null) return true;
        if (Array.isArray(value)) return arrays(value, depth);
        return isPlainObject(value) && objects(value, depth);
      default:
        // undefined, a function, a bigint, a symbol: not JSON.
        return false;
    }
  };
}

const never: Check = () => false;

/** Any JSON value: finite numbers, plain objects, arrays without holes, no cycle. */
const isJson: Check = (value, depth) => {
  switch (typeof value) {
    case "number":
      return Number.isFinite(value);
    case "string":
    case "boolean":
      return true;
    case "object": {
      if (value === null) return true;
      if (depth > MAX_DEPTH) return false;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++)
          if (!(i in value) || !isJson(value[i], depth + 1)) return false;
        return true;
      }
      if (!isPlainObject(value)) return false;
      for (const key of Object.keys(value)) {
        const item = (value as Record<string, unknown>)[key];
        // A property set to undefined: JSON leaves it out, and so does the full validator's retry.
        if (item === undefined || !isJson(item, depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
};

const TYPES: Record<string, (value: unknown) => boolean> = {
  null: (value) => value === null,
  boolean: (value) => typeof value === "boolean",
  string: (value) => typeof value === "string",
  number: (value) => typeof value === "number",
  integer: (value) => Number.isInteger(value),
  object: (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  array: (value) => Array.isArray(value),
};

/** The `type` keyword's check; null when absent, undefined when it is not one this knows. */
function typeCheck(type: unknown): Check | null | undefined {
  if (type === undefined) return null;
  const names = Array.isArray(type) ? type : [type];
  const tests: ((value: unknown) => boolean)[] = [];
  for (const name of names) {
    const test = typeof name === "string" && Object.hasOwn(TYPES, name) ? TYPES[name] : undefined;
    if (!test) return undefined;
    tests.push(test);
  }
  return (value) => tests.some((test) => test(value));
}

/** A keyword's number, null when absent, undefined when it is not a number. */
function numberOf(s: Record<string, unknown>, key: string): number | null | undefined {
  const value = s[key];
  if (value === undefined) return null;
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function numberCheck(s: Record<string, unknown>): Check | undefined {
  const min = numberOf(s, "minimum");
  const max = numberOf(s, "maximum");
  const above = numberOf(s, "exclusiveMinimum");
  const below = numberOf(s, "exclusiveMaximum");
  if (min === undefined || max === undefined || above === undefined || below === undefined)
    return undefined;
  return (value) => {
    const n = value as number;
    return (
      (min === null || n >= min) &&
      (max === null || n <= max) &&
      (above === null || n > above) &&
      (below === null || n < below)
    );
  };
}

function stringCheck(s: Record<string, unknown>): Check | undefined {
  const min = numberOf(s, "minLength");
  const max = numberOf(s, "maxLength");
  if (min === undefined || max === undefined) return undefined;
  if (min === null && max === null) return () => true;
  return (value) => {
    // Lengths count code points, as the drafts say: a surrogate pair is one character.
    const length = codePoints(value as string);
    return (min === null || length >= min) && (max === null || length <= max);
  };
}

function codePoints(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}

function arrayCheck(s: Record<string, unknown>): Check | undefined {
  const min = numberOf(s, "minItems");
  const max = numberOf(s, "maxItems");
  if (min === undefined || max === undefined) return undefined;
  if (s.uniqueItems !== undefined && typeof s.uniqueItems !== "boolean") return undefined;
  const unique = s.uniqueItems === true;
  // Only the one-schema form of `items`: the tuple form differs between drafts.
  const items = s.items === undefined ? isJson : compileNode(s.items, false);
  if (!items) return undefined;
  return (value, depth) => {
    const array = value as unknown[];
    if ((min !== null && array.length < min) || (max !== null && array.length > max)) return false;
    for (let i = 0; i < array.length; i++)
      if (!(i in array) || !items(array[i], depth + 1)) return false;
    if (unique) {
      for (let i = 0; i < array.length; i++)
        for (let j = i + 1; j < array.length; j++) if (jsonEqual(array[i], array[j])) return false;
    }
    return true;
  };
}

function objectCheck(s: Record<string, unknown>): Check | undefined {
  const min = numberOf(s, "minProperties");
  const max = numberOf(s, "maxProperties");
  if (min === undefined || max === undefined) return undefined;
  let required: string[] = [];
  if (s.required !== undefined) {
    if (!Array.isArray(s.required) || !s.required.every((key) => typeof key === "string"))
      return undefined;
    required = s.required;
  }
  // A Map, so a property named "__proto__" or "constructor" is a name like any other.
  const properties = new Map<string, Check>();
  if (s.properties !== undefined) {
    if (!isPlainObject(s.properties)) return undefined;
    for (const [key, sub] of Object.entries(s.properties)) {
      const check = compileNode(sub, false);
      if (!check) return undefined;
      properties.set(key, check);
    }
  }
  const additional =
    s.additionalProperties === undefined ? isJson : compileNode(s.additionalProperties, false);
  if (!additional) return undefined;
  return (value, depth) => {
    const object = value as Record<string, unknown>;
    for (const key of required) if (!Object.hasOwn(object, key)) return false;
    const keys = Object.keys(object);
    if ((min !== null && keys.length < min) || (max !== null && keys.length > max)) return false;
    for (const key of keys) {
      const item = object[key];
      if (item === undefined) return false;
      if (!(properties.get(key) ?? additional)(item, depth + 1)) return false;
    }
    return true;
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** Equality as JSON Schema's `enum`, `const` and `uniqueItems` read it (1 and 1.0 are equal). */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(b, key)) return false;
    if (!jsonEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
      return false;
  }
  return true;
}
