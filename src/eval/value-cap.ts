import { MAX_TYPED_ITEMS } from "../json-safe.js";
import type { AttemptRecord } from "./record.js";

/**
 * The most JSON a value an attempt produced (its output, metadata or trace) may take as it is:
 * past it, the record holds the value's first bytes and its size, as the store keeps a value
 * above its own cap. A supervised record crosses to the CLI as one JSON text, and V8's strings
 * stop at about 512 MiB: an output of several hundred MiB would otherwise be lost on the way.
 */
export const RUN_VALUE_CAP_BYTES = 64 * 1024 * 1024;

/** Characters of a capped value's JSON kept as its head. */
const HEAD_CHARS = 64 * 1024;

/** Nesting followed when sizing; deeper parts are not counted (serialisation marks them). */
const MAX_DEPTH = 500;

/** The values of the code under test an attempt produced. */
const RUN_VALUES = ["output", "metadata", "trace"] as const;

/**
 * The record with each output, metadata or trace above {@link RUN_VALUE_CAP_BYTES} of JSON in
 * place replaced by a truncated marker (`{ "~truncated": true, bytes, head }`, the store's own),
 * so reports and the store show it as cut, with its size. Sizing stops once past the cap, so a
 * small value costs a short walk.
 */
export function capRunValues(record: AttemptRecord, capBytes = RUN_VALUE_CAP_BYTES): AttemptRecord {
  for (const key of RUN_VALUES) {
    const value = record[key];
    if (value === undefined || value === null || typeof value === "number") continue;
    const size = jsonSizeOver(value, capBytes);
    if (size === undefined) continue;
    (record as unknown as Record<string, unknown>)[key] = {
      "~truncated": true,
      bytes: size,
      head: jsonHead(value, HEAD_CHARS),
    };
  }
  return record;
}

/**
 * About how many bytes `value`'s JSON takes, when more than `limit` (counted as characters,
 * as far as the walk went: a lower bound); undefined when it fits.
 */
export function jsonSizeOver(value: unknown, limit: number): number | undefined {
  let total = 0;
  const seen = new Set<object>();
  const walk = (v: unknown, depth: number): void => {
    if (total > limit) return;
    switch (typeof v) {
      case "string":
        total += v.length + 2;
        return;
      case "object": {
        if (v === null || depth > MAX_DEPTH || seen.has(v)) return;
        seen.add(v);
        if (Array.isArray(v)) {
          total += 2 + v.length;
          for (let i = 0; i < v.length && total <= limit; i++) walk(v[i], depth + 1);
        } else if (ArrayBuffer.isView(v)) {
          // As it is kept (json-safe.ts): its first numbers and a count of the rest.
          total += 2 + Math.min(typedLength(v), MAX_TYPED_ITEMS) * 2;
        } else {
          // Own enumerable keys, as JSON writes them (faster than for…in on a wide object).
          const keys = Object.keys(v);
          total += 2;
          for (let i = 0; i < keys.length && total <= limit; i++) {
            total += keys[i]!.length + 4;
            walk((v as Record<string, unknown>)[keys[i]!], depth + 1);
          }
        }
        seen.delete(v);
        return;
      }
      default:
        total += 5;
    }
  };
  try {
    walk(value, 0);
  } catch {
    // A getter that throws: the value is sized as far as it could be read.
  }
  return total > limit ? total : undefined;
}

/** The first `maxChars` characters of `value`'s JSON, written only that far. */
export function jsonHead(value: unknown, maxChars: number): string {
  if (typeof value === "string") return JSON.stringify(value.slice(0, maxChars)).slice(0, maxChars);
  let out = "";
  const write = (v: unknown, depth: number): void => {
    if (out.length >= maxChars) return;
    if (typeof v !== "object" || v === null || depth > MAX_DEPTH) {
      const text = typeof v === "string" ? JSON.stringify(v.slice(0, maxChars)) : String(v);
      out += text;
      return;
    }
    if (ArrayBuffer.isView(v)) {
      // Index by index: Object.entries of a 100 MB buffer is 100 million pairs.
      out += "[";
      const items = v as unknown as ArrayLike<unknown>;
      const length = typedLength(v);
      for (let i = 0; i < length && out.length < maxChars; i++)
        out += `${i ? "," : ""}${String(items[i])}`;
      out += "]";
      return;
    }
    const array = Array.isArray(v);
    out += array ? "[" : "{";
    let first = true;
    const entries = array ? v.entries() : Object.entries(v);
    for (const [key, item] of entries) {
      if (out.length >= maxChars) break;
      out += `${first ? "" : ","}${array ? "" : `${JSON.stringify(key)}:`}`;
      first = false;
      write(item, depth + 1);
    }
    out += array ? "]" : "}";
  };
  try {
    write(value, 0);
  } catch {
    // What could be read is kept.
  }
  return out.slice(0, maxChars);
}

/** Items of a typed array (a DataView's bytes). */
function typedLength(view: ArrayBufferView): number {
  return (view as unknown as { length?: number }).length ?? view.byteLength;
}
