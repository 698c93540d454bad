/** Marker written in place of a reference back to an enclosing object. */
export const CIRCULAR_MARKER = "[unserialisable: circular reference]";

const MAX_DEPTH = 500;

/**
 * JSON of any value, never throwing. Plain values take `JSON.stringify`'s own path; when that
 * throws, a copy is serialised in which a BigInt becomes `"[unserialisable: bigint 12]"`, a
 * reference back to an enclosing object becomes {@link CIRCULAR_MARKER}, and a property whose
 * getter or `toJSON` throws becomes `"[unserialisable: <message>]"`.
 */
export function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "null";
  } catch {
    try {
      return JSON.stringify(sanitize(value, new Set(), 0)) ?? "null";
    } catch (error) {
      return JSON.stringify(unserialisable(error));
    }
  }
}

const unserialisable = (error: unknown) =>
  `[unserialisable: ${error instanceof Error ? error.message : String(error)}]`;

function sanitize(value: unknown, ancestors: Set<object>, depth: number): unknown {
  if (typeof value === "bigint") return `[unserialisable: bigint ${value}]`;
  if (typeof value !== "object" || value === null) return value;
  if (ancestors.has(value)) return CIRCULAR_MARKER;
  if (depth >= MAX_DEPTH) return `[unserialisable: nested deeper than ${MAX_DEPTH}]`;
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
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      copy[key] = guarded(() => (value as Record<string, unknown>)[key], ancestors, depth);
    }
    return copy;
  } finally {
    ancestors.delete(value);
  }
}

function guarded(read: () => unknown, ancestors: Set<object>, depth: number): unknown {
  try {
    return sanitize(read(), ancestors, depth + 1);
  } catch (error) {
    return unserialisable(error);
  }
}
