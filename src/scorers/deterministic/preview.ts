import { CIRCULAR_MARKER, opaqueMarker, safeStringify, valueMarker } from "../../json-safe.js";

const PREVIEW_LIMIT = 60;

/** Quote a string for a rationale, cut to a readable length so reports stay small. */
export function preview(text: string): string {
  const quoted = JSON.stringify(text.length > PREVIEW_LIMIT ? text.slice(0, PREVIEW_LIMIT) : text);
  return text.length > PREVIEW_LIMIT ? `${quoted}… (${text.length} chars)` : quoted;
}

/** `text` cut to `limit` characters, marked "…" when cut: a key or a name in a reason. */
export const clip = (text: string, limit = PREVIEW_LIMIT): string =>
  text.length > limit ? `${text.slice(0, limit)}…` : text;

/** Flags past this many characters are cut: a valid set has at most 8 (`dgimsuvy`). */
const FLAGS_LIMIT = 8;

/**
 * A regular expression for a reason, `/source/flags` as written, its source cut as
 * {@link preview} cuts text (with its size) and control characters escaped, so a 2 MB pattern
 * or one holding a line break keeps the reason short and on one line.
 * @example
 * previewRegex("#\\d+", "i") // → "/#\\d+/i"
 */
export function previewRegex(source: string, flags: string): string {
  const size = source.length > PREVIEW_LIMIT ? ` (${source.length} chars)` : "";
  return `/${escapeControls(clip(source))}/${escapeControls(clip(flags, FLAGS_LIMIT))}${size}`;
}

// A line break or another control character, written as JSON writes it.
function escapeControls(text: string): string {
  let out = "";
  for (const char of text)
    out += char.charCodeAt(0) < 0x20 ? JSON.stringify(char).slice(1, -1) : char;
  return out;
}

/**
 * A value as short JSON for a reason. Written only as far as the preview shows: a whole
 * `JSON.stringify` of a 50 MB string or a 2,000,000-item array took seconds for 60 characters.
 * What JSON would write as `null` is shown as it is (`NaN`, `Infinity`, an array's `undefined`),
 * so a reason never quotes a null that was not there; and what it would write as `{}` as the
 * store keeps it (a Map its entries, a Set and a typed array their items, a RegExp its text, an
 * invalid Date a marker), so a report never shows an empty object that was not empty.
 * @example
 * show({ value: NaN, rationale: "oops" }) // → '{"value":NaN,"rationale":"oops"}'
 */
export function show(value: unknown): string {
  return written(value, false);
}

/**
 * {@link show}, with a BigInt, a function and a symbol written as the store writes them (its
 * markers): a report line that `niceeval show` writes again from the stored value.
 */
export function showAsStored(value: unknown): string {
  return written(value, true);
}

function written(value: unknown, asStored: boolean): string {
  let text = "";
  // False once the preview is full: the rest of the value is not visited.
  const add = (part: string): boolean => {
    text += part;
    return text.length <= PREVIEW_LIMIT;
  };
  // The objects being written around the current one: one met again is a cycle.
  const ancestors = new Set<object>();
  const visit = (node: unknown): boolean => {
    // `asStored`: a BigInt, a function, a symbol, the numbers JSON has no place for, an array's
    // undefined item and an Error as the store writes them, so that a value shown live and the
    // same value read back by `niceeval show` agree. Otherwise (a reason quoting what a callback
    // returned) as JavaScript writes them, where JSON would write a null that was not there.
    if (
      asStored &&
      (typeof node === "bigint" || typeof node === "function" || typeof node === "symbol")
    )
      return add(JSON.stringify(valueMarker(node)));
    if (typeof node === "bigint") return add(`${node}n`);
    if ((typeof node === "number" && !Number.isFinite(node)) || node === undefined)
      return add(asStored ? "null" : String(node));
    if (typeof node === "string") {
      return add(JSON.stringify(node.length > PREVIEW_LIMIT ? node.slice(0, PREVIEW_LIMIT) : node));
    }
    if (typeof node !== "object" || node === null) return add(JSON.stringify(node) ?? "null");
    if (ancestors.has(node)) return add(JSON.stringify(CIRCULAR_MARKER));
    if (asStored && node instanceof Error) return add(safeStringify(node));
    const special = builtInText(node);
    if (special !== undefined) return add(special);
    ancestors.add(node);
    const written = visitWithin(node);
    ancestors.delete(node);
    return written;
  };
  // The items or fields of an object, or its own JSON when it has a toJSON.
  const visitWithin = (node: object): boolean => {
    // Read item by item, and only as far as the preview goes: Object.entries of a 100 MB buffer
    // would be 100 million pairs for a 60-character preview.
    const items = itemsOf(node);
    if (items !== undefined) {
      if (!add("[")) return false;
      let first = true;
      for (const item of items) {
        if ((!first && !add(",")) || !visit(item)) return false;
        first = false;
      }
      return add("]");
    }
    if (typeof (node as { toJSON?: unknown }).toJSON === "function") {
      return add(JSON.stringify(node) ?? "null");
    }
    if (!add("{")) return false;
    let first = true;
    for (const [key, item] of fieldsOf(node)) {
      if (item === undefined) continue;
      if (!asStored && (typeof item === "function" || typeof item === "symbol")) continue;
      if (!add(`${first ? "" : ","}${JSON.stringify(key)}:`) || !visit(item)) return false;
      first = false;
    }
    return add("}");
  };
  if (value === undefined) return String(value);
  if (!asStored && (typeof value === "function" || typeof value === "symbol")) return String(value);
  try {
    visit(value);
  } catch {
    return String(value);
  }
  return text.length > PREVIEW_LIMIT ? `${text.slice(0, PREVIEW_LIMIT)}…` : text;
}

/** A built-in object JSON would write as `{}` or `null`, as the store writes it; else undefined. */
function builtInText(node: object): string | undefined {
  const opaque = opaqueMarker(node);
  if (opaque !== undefined) return JSON.stringify(opaque);
  if (node instanceof RegExp) return JSON.stringify(String(node));
  if (node instanceof Number || node instanceof String || node instanceof Boolean)
    return JSON.stringify(node.valueOf());
  return undefined;
}

/** The items of an array, a Set or a typed array, as the store writes them; else undefined. */
function itemsOf(node: object): Iterable<unknown> | undefined {
  if (Array.isArray(node) || node instanceof Set) return node;
  if (ArrayBuffer.isView(node) && !(node instanceof DataView)) {
    return node as unknown as Iterable<number | bigint>;
  }
  return undefined;
}

/** The fields of an object; a Map's entries (a key that is not a string as JSON); an Error's name and message first. */
function* fieldsOf(node: object): Iterable<[string, unknown]> {
  if (node instanceof Map) {
    for (const [key, item] of node)
      yield [typeof key === "string" ? key : safeStringify(key), item];
    return;
  }
  if (!(node instanceof Error)) {
    yield* Object.entries(node);
    return;
  }
  yield ["name", node.name];
  yield ["message", node.message];
  for (const field of Object.entries(node))
    if (field[0] !== "name" && field[0] !== "message") yield field;
}
