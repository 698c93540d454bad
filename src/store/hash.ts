import { createHash } from "node:crypto";

/**
 * A stable hash of any value: object keys in sorted order, functions by their source, cycles
 * and BigInts by a marker. Two runs whose configuration hashes differ were not configured alike.
 */
export function hashValue(value: unknown): string {
  // The canonical text is built first and hashed in one update: the same bytes, so the same
  // digest, as hashing it piece by piece, for a fraction of the calls.
  const text = new CanonicalText();
  text.feed(value, new Set());
  return createHash("sha256").update(text.text).digest("hex").slice(0, 16);
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

  /**
   * `add({ id, input, expected })`, without building the object or serialising it as one when
   * input and expected are plain strings, numbers, booleans, null or undefined (the same text,
   * so the same digest); anything else goes through {@link add}.
   */
  addCase(id: string, input: unknown, expected: unknown): void {
    const inputText = primitiveJson(input);
    const expectedText = primitiveJson(expected);
    if (inputText === null || expectedText === null) {
      this.add({ id, input, expected });
      return;
    }
    this.chunk += `{"id":${quoted(id)}`;
    if (inputText !== undefined) this.chunk += `,"input":${inputText}`;
    if (expectedText !== undefined) this.chunk += `,"expected":${expectedText}`;
    this.chunk += "}\u001e";
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

// What JSON.stringify escapes in a string: quotes, backslashes, controls and lone surrogates.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** JSON.stringify of a string, quoted by hand when nothing in it needs escaping. */
function quoted(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/**
 * JSON.stringify of a property value that is a primitive: its text, undefined when the key is
 * left out (undefined), or null when it is not such a primitive (the caller serialises it).
 */
function primitiveJson(value: unknown): string | undefined | null {
  switch (typeof value) {
    case "string":
      return quoted(value);
    case "number":
      return Number.isFinite(value) ? String(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    case "undefined":
      return undefined;
    case "object":
      return value === null ? "null" : null;
    default:
      return null;
  }
}

/** The text hashValue hashes: keys sorted, functions by their source, cycles by a marker. */
class CanonicalText {
  text = "";

  feed(value: unknown, ancestors: Set<object>): void {
    switch (typeof value) {
      case "string":
        this.text += JSON.stringify(value);
        return;
      case "number":
      case "boolean":
      case "symbol":
        this.text += String(value);
        return;
      case "bigint":
        this.text += `${value}n`;
        return;
      case "undefined":
        this.text += "undefined";
        return;
      case "function":
        this.text += `fn:${String(value)}`;
        return;
    }
    if (value === null) {
      this.text += "null";
      return;
    }
    const object = value as object;
    if (ancestors.has(object)) {
      this.text += "[circular]";
      return;
    }
    ancestors.add(object);
    if (Array.isArray(object)) {
      this.text += "[";
      for (const item of object) {
        this.feed(item, ancestors);
        this.text += ",";
      }
      this.text += "]";
    } else {
      this.text += "{";
      for (const key of Object.keys(object).sort()) {
        this.text += `${JSON.stringify(key)}:`;
        this.feed((object as Record<string, unknown>)[key], ancestors);
        this.text += ",";
      }
      this.text += "}";
    }
    ancestors.delete(object);
  }
}
