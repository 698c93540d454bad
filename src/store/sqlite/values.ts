import { createHash } from "node:crypto";
import type Database from "better-sqlite3";
import type { TruncatedValue } from "../types.js";

/** JSON above this many bytes goes to the content-addressed `blobs` table; smaller stays inline. */
export const INLINE_MAX_BYTES = 1024;

/** The longest prefix of `text` that fits in `maxBytes` of UTF-8, never splitting a character. */
export function utf8Head(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString("utf8");
}

/** Writes and reads values through the `blobs` table of one connection. */
export class BlobTable {
  readonly #find: Database.Statement<[Buffer], { id: number }>;
  readonly #insert: Database.Statement<[Buffer, number, number, string], { id: number }>;
  readonly #read: Database.Statement<[number], { bytes: number; truncated: number; json: string }>;

  constructor(
    db: Database.Database,
    readonly capBytes: number,
  ) {
    this.#find = db.prepare("SELECT id FROM blobs WHERE hash = ?");
    this.#insert = db.prepare(
      "INSERT INTO blobs (hash, bytes, truncated, json) VALUES (?, ?, ?, ?) RETURNING id",
    );
    this.#read = db.prepare("SELECT bytes, truncated, json FROM blobs WHERE id = ?");
  }

  /** Whether {@link put} keeps this JSON inline. */
  isInline(json: string): boolean {
    // A cap below the inline threshold still applies: such a value goes through the blob path.
    const inlineMax = Math.min(INLINE_MAX_BYTES, this.capBytes);
    return json.length <= inlineMax / 3 || Buffer.byteLength(json) <= inlineMax;
  }

  /** Inline JSON for a small value; otherwise the id of its blob (written once per content). */
  put(json: string): string | number {
    if (this.isInline(json)) return json;
    const bytes = Buffer.byteLength(json);
    const truncated = bytes > this.capBytes;
    const hash = createHash("sha256").update(json);
    // A truncated value's stored text depends on the cap, so the cap is part of its address.
    if (truncated) hash.update(`\0truncated:${this.capBytes}`);
    const digest = hash.digest();
    const found = this.#find.get(digest);
    if (found) return found.id;
    const stored = truncated ? utf8Head(json, this.capBytes) : json;
    return this.#insert.get(digest, bytes, truncated ? 1 : 0, stored)!.id;
  }

  /** The value of a blob, or the {@link TruncatedValue} marker of a cut one. */
  get(id: number): unknown {
    const row = this.#read.get(id);
    if (!row) return { "~missing": `blob ${id}` };
    if (row.truncated) {
      const marker: TruncatedValue = { "~truncated": true, bytes: row.bytes, head: row.json };
      return marker;
    }
    return JSON.parse(row.json);
  }
}
