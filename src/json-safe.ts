/** Marker written in place of a reference back to an enclosing object. */
export const CIRCULAR_MARKER = "[unserialisable: circular reference]";

const MAX_DEPTH = 500;
/** Deeper than this, the plain-data check gives up and the careful path decides. */
const PLAIN_DEPTH = 64;
/** Items of a typed array written; the rest are counted in a marker. */
export const MAX_TYPED_ITEMS = 10_000;
/** Lines of an error's stack kept (its message line and the first frames). */
const STACK_LINES = 6;

const marker = (what: string) => `[unserialisable: ${what}]`;

/** The marker written in place of a value JSON has no place for: a BigInt, a function, a symbol. */
export function valueMarker(value: bigint | symbol | { readonly name: string }): string {
  if (typeof value === "bigint") return marker(`bigint ${value}`);
  if (typeof value === "symbol") return marker(value.toString());
  return marker(`function ${value.name || "(anonymous)"}`);
}

/** Marker written in place of an invalid Date (`new Date("not a date")`). */
const INVALID_DATE = marker("invalid Date");

/**
 * JSON of any value, never throwing. Plain data (objects, arrays, strings, finite numbers,
 * booleans, null, valid Dates) takes `JSON.stringify`'s own path. Anything else is copied
 * first: a BigInt becomes `"[unserialisable: bigint 12]"`, a function or symbol
 * `"[unserialisable: function f]"`, a cycle {@link CIRCULAR_MARKER}, an Error
 * `{ name, message, stack (its head), cause, …own fields }`, a Map an object of its entries,
 * a Set an array, a typed array an array of its numbers (at most 10,000), a RegExp its
 * text (`"/ab+c/g"`), and a property whose getter or `toJSON` throws `"[unserialisable: <message>]"`.
 * @example
 * safeStringify({ n: 1n, f() {} }); // '{"n":"[unserialisable: bigint 1]","f":"[unserialisable: function f]"}'
 */
export function safeStringify(value: unknown): string {
  try {
    if (isPlain(value, 0)) return JSON.stringify(value) ?? "null";
  } catch {
    // A getter threw, or the plain check was wrong: the careful path below decides.
  }
  try {
    return JSON.stringify(sanitize(value, new Set(), 0)) ?? "null";
  } catch (error) {
    return JSON.stringify(unserialisable(error));
  }
}

// A run of backslashes before "udXXX" (a surrogate's hex): an escape of one when the run is odd
// (the last backslash not itself escaped). JSON.stringify writes a pair as its characters, so
// every such escape it wrote is half of a character.
const SURROGATE_ESCAPE = /\\+ud[89a-f][0-9a-f]{2}/gi;

/**
 * JSON text (as JSON.stringify writes it) whose strings are well-formed: a lone surrogate, half of
 * a character that UTF-8 cannot hold, becomes U+FFFD, as in the XML and Markdown reports. Readers
 * refuse the escape (jq 1.6 stops the whole stream at it) or give a string that cannot be written
 * out again (Python's UTF-8 encoding raises).
 */
export function wellFormedJson(json: string): string {
  if (!json.includes("\\u")) return json;
  return json.replace(SURROGATE_ESCAPE, (run) =>
    (run.length - 5) % 2 === 1 ? `${run.slice(0, -6)}\\ufffd` : run,
  );
}

type WellFormedString = string & { isWellFormed(): boolean; toWellFormed(): string };

/**
 * Text that is well-formed: a lone surrogate becomes U+FFFD, as {@link wellFormedJson} writes it in
 * JSON (SQLite would keep its three bytes of CESU-8, read back as three U+FFFD). The check is
 * native and copies nothing.
 */
export function wellFormedText(text: string): string {
  const checked = text as WellFormedString;
  return checked.isWellFormed() ? text : checked.toWellFormed();
}

/** A plain-data copy of any value, as {@link safeStringify} writes it; never throws. */
export const jsonSafeCopy = (value: unknown): unknown => JSON.parse(safeStringify(value));

const unserialisable = (error: unknown) =>
  marker(error instanceof Error ? error.message : String(error));

/** Whether JSON.stringify writes `value` faithfully: no cycles, no lost or mangled values. */
function isPlain(value: unknown, depth: number): boolean {
  if (value === null) return true;
  const type = typeof value;
  if (type === "string" || type === "number" || type === "boolean" || type === "undefined")
    return true;
  if (type !== "object" || depth > PLAIN_DEPTH) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (!isPlain(item, depth + 1)) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto === Date.prototype) return !Number.isNaN((value as Date).getTime());
  if (proto !== Object.prototype && proto !== null) return false;
  const record = value as Record<string, unknown>;
  if (typeof record.toJSON === "function") return false;
  for (const key in record) {
    if (!isPlain(record[key], depth + 1)) return false;
  }
  return true;
}

function sanitize(value: unknown, ancestors: Set<object>, depth: number): unknown {
  switch (typeof value) {
    case "bigint":
    case "function":
    case "symbol":
      return valueMarker(value);
    case "object":
      break;
    default:
      return value;
  }
  if (value === null) return value;
  if (ancestors.has(value)) return CIRCULAR_MARKER;
  if (depth >= MAX_DEPTH) return marker(`nested deeper than ${MAX_DEPTH}`);
  const special = builtIn(value, ancestors, depth);
  if (special !== NOT_BUILT_IN) return special;
  let plain: unknown = value;
  try {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") plain = toJSON.call(value);
  } catch (error) {
    return unserialisable(error);
  }
  if (plain !== value) return sanitize(plain, ancestors, depth + 1);
  ancestors.add(value);
  try {
    if (Array.isArray(value)) return value.map((item) => guarded(() => item, ancestors, depth));
    return copyFields(value, {}, ancestors, depth);
  } finally {
    ancestors.delete(value);
  }
}

const NOT_BUILT_IN = Symbol("not built in");

/**
 * The marker written for a built-in object that holds nothing JSON can show (an invalid Date, a
 * buffer, a DataView, a Promise, a weak collection); undefined for other objects.
 */
export function opaqueMarker(value: object): string | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? INVALID_DATE : undefined;
  if (value instanceof DataView) return marker(`DataView of ${value.byteLength} bytes`);
  if (value instanceof ArrayBuffer || value instanceof SharedArrayBuffer)
    return marker(`${value.constructor.name} of ${value.byteLength} bytes`);
  if (
    value instanceof WeakMap ||
    value instanceof WeakSet ||
    value instanceof Promise ||
    value instanceof WeakRef
  )
    return marker(value.constructor.name);
  return undefined;
}

/** Built-in objects JSON.stringify would write as `{}` or lose: their closest JSON. */
function builtIn(value: object, ancestors: Set<object>, depth: number): unknown {
  const opaque = opaqueMarker(value);
  if (opaque !== undefined) return opaque;
  if (value instanceof Date) return value.toISOString();
  if (value instanceof RegExp) return String(value);
  if (ArrayBuffer.isView(value)) return typedItems(value);
  if (value instanceof Number || value instanceof String || value instanceof Boolean)
    return value.valueOf();
  if (!(value instanceof Error || value instanceof Map || value instanceof Set))
    return NOT_BUILT_IN;
  ancestors.add(value);
  try {
    if (value instanceof Set)
      return Array.from(value, (item) => guarded(() => item, ancestors, depth));
    if (value instanceof Map) {
      const entries: Record<string, unknown> = {};
      for (const [key, item] of value) {
        entries[typeof key === "string" ? key : safeStringify(key)] = guarded(
          () => item,
          ancestors,
          depth,
        );
      }
      return entries;
    }
    const error: Record<string, unknown> = {
      name: guarded(() => value.name, ancestors, depth),
      message: guarded(() => value.message, ancestors, depth),
    };
    const stack = value.stack;
    if (typeof stack === "string") error.stack = stack.split("\n", STACK_LINES).join("\n");
    if (value.cause !== undefined) error.cause = guarded(() => value.cause, ancestors, depth);
    return copyFields(value, error, ancestors, depth);
  } finally {
    ancestors.delete(value);
  }
}

function copyFields(
  value: object,
  copy: Record<string, unknown>,
  ancestors: Set<object>,
  depth: number,
): Record<string, unknown> {
  for (const key of Object.keys(value)) {
    copy[key] = guarded(() => (value as Record<string, unknown>)[key], ancestors, depth);
  }
  return copy;
}

function typedItems(view: ArrayBufferView): unknown {
  const items = view as unknown as ArrayLike<number | bigint>;
  const kept = Math.min(items.length, MAX_TYPED_ITEMS);
  const out: unknown[] = new Array(kept);
  for (let i = 0; i < kept; i++) {
    const item = items[i]!;
    out[i] = typeof item === "bigint" ? String(item) : item;
  }
  if (items.length > kept)
    out.push(marker(`${items.length - kept} more items of ${view.constructor.name}`));
  return out;
}

function guarded(read: () => unknown, ancestors: Set<object>, depth: number): unknown {
  try {
    return sanitize(read(), ancestors, depth + 1);
  } catch (error) {
    return unserialisable(error);
  }
}

/** Whether `text` is JSON (a body, a line of a file), read by JSON.parse. */
export function isJsonText(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
