import { createHash, type Hash } from "node:crypto";

/**
 * A stable hash of any value: object keys in sorted order, functions by their source, cycles
 * and BigInts by a marker. Two runs whose configuration hashes differ were not configured alike.
 */
export function hashValue(value: unknown): string {
  const hash = createHash("sha256");
  feed(hash, value, new Set());
  return hash.digest("hex").slice(0, 16);
}

/** An incremental hash of a sequence of values (a dataset read case by case). */
export class SequenceHash {
  private readonly hash = createHash("sha256");
  private count = 0;

  add(value: unknown): void {
    feed(this.hash, value, new Set());
    this.hash.update("\u001e");
    this.count++;
  }

  digest(): string {
    this.hash.update(`#${this.count}`);
    return this.hash.digest("hex").slice(0, 16);
  }
}

function feed(hash: Hash, value: unknown, ancestors: Set<object>): void {
  switch (typeof value) {
    case "string":
      hash.update(JSON.stringify(value));
      return;
    case "number":
    case "boolean":
      hash.update(String(value));
      return;
    case "bigint":
      hash.update(`${value}n`);
      return;
    case "undefined":
      hash.update("undefined");
      return;
    case "function":
      hash.update(`fn:${String(value)}`);
      return;
    case "symbol":
      hash.update(String(value));
      return;
  }
  if (value === null) {
    hash.update("null");
    return;
  }
  const object = value as object;
  if (ancestors.has(object)) {
    hash.update("[circular]");
    return;
  }
  ancestors.add(object);
  if (Array.isArray(object)) {
    hash.update("[");
    for (const item of object) {
      feed(hash, item, ancestors);
      hash.update(",");
    }
    hash.update("]");
  } else {
    hash.update("{");
    for (const key of Object.keys(object).sort()) {
      hash.update(JSON.stringify(key));
      hash.update(":");
      feed(hash, (object as Record<string, unknown>)[key], ancestors);
      hash.update(",");
    }
    hash.update("}");
  }
  ancestors.delete(object);
}
