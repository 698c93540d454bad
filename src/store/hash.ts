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

/**
 * An incremental hash of a sequence of values (a dataset read case by case). Values are taken
 * as their JSON, which is stable for data read the same way twice, and hashed in chunks.
 */
export class SequenceHash {
  private readonly hash = createHash("sha256");
  private count = 0;
  private chunk = "";

  add(value: unknown): void {
    let text: string | undefined;
    try {
      text = JSON.stringify(value);
    } catch {
      text = undefined;
    }
    // Cycles and BigInts have no JSON: those values go through the canonical walk.
    this.chunk += text === undefined ? `~${hashValue(value)}` : text;
    this.chunk += "\u001e";
    this.count++;
    if (this.chunk.length > 65536) {
      this.hash.update(this.chunk);
      this.chunk = "";
    }
  }

  private result: string | undefined;

  digest(): string {
    this.result ??= this.hash.update(`${this.chunk}#${this.count}`).digest("hex").slice(0, 16);
    return this.result;
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
