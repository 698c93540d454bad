import { createHash } from "node:crypto";
import type pg from "pg";
import type { ValueCell } from "../sqlite/codec.js";
import { INLINE_MAX_BYTES, utf8Head } from "../sqlite/values.js";
import type { TruncatedValue } from "../types.js";

/** A value column as PostgreSQL stores it: inline JSON, or `@` and a blob id (JSON never starts with `@`). */
export function toPgCell(cell: ValueCell): string | null {
  return typeof cell === "number" ? `@${cell}` : cell;
}

export function fromPgCell(text: string | null): ValueCell {
  return text?.startsWith("@") ? Number(text.slice(1)) : text;
}

/** Whether JSON text stays inline (the SQLite backend's threshold; a smaller cap still applies). */
export function isInline(json: string, capBytes: number): boolean {
  const inlineMax = Math.min(INLINE_MAX_BYTES, capBytes);
  return json.length <= inlineMax / 3 || Buffer.byteLength(json) <= inlineMax;
}

/** A large value ready to be written: its content address and what is kept of it. */
interface PendingBlob {
  hash: Buffer;
  bytes: number;
  truncated: boolean;
  json: string;
}

/**
 * Content-addressed blobs in batches: values are collected while a batch is encoded, written in
 * one statement (sorted by hash, so concurrent writers never deadlock on each other's rows), and
 * their ids looked up; `ids` maps each value's JSON to its blob id.
 */
export class BlobBatch {
  readonly #pending = new Map<string, PendingBlob>();
  readonly ids = new Map<string, number>();

  constructor(readonly capBytes: number) {}

  /** The id of a value already written in this batch, or undefined after noting it for {@link write}. */
  put(json: string): number | undefined {
    const known = this.ids.get(json);
    if (known !== undefined) return known;
    if (!this.#pending.has(json)) {
      const bytes = Buffer.byteLength(json);
      const truncated = bytes > this.capBytes;
      const hash = createHash("sha256").update(json);
      // A truncated value's stored text depends on the cap, so the cap is part of its address.
      if (truncated) hash.update(`\0truncated:${this.capBytes}`);
      this.#pending.set(json, {
        hash: hash.digest(),
        bytes,
        truncated,
        json: truncated ? utf8Head(json, this.capBytes) : json,
      });
    }
    return undefined;
  }

  get size(): number {
    return this.#pending.size;
  }

  /** Write the noted values (each content once) and learn their ids. */
  async write(client: pg.ClientBase): Promise<void> {
    if (this.#pending.size === 0) return;
    const pending = [...this.#pending].sort(([, a], [, b]) => Buffer.compare(a.hash, b.hash));
    const byHash = new Map(pending.map(([json, blob]) => [blob.hash.toString("hex"), json]));
    const found = (rows: { id: number; hash: Buffer }[]) => {
      for (const row of rows) {
        const json = byHash.get(row.hash.toString("hex"));
        if (json !== undefined) this.ids.set(json, row.id);
      }
    };
    const hashes = pending.map(([, b]) => b.hash);
    found(
      (
        await client.query<{ id: number; hash: Buffer }>(
          "SELECT id, hash FROM niceeval.blobs WHERE hash = ANY($1::bytea[])",
          [hashes],
        )
      ).rows,
    );
    const missing = pending.filter(([json]) => !this.ids.has(json));
    if (missing.length > 0) {
      const inserted = await client.query<{ id: number; hash: Buffer }>(
        `INSERT INTO niceeval.blobs (hash, bytes, truncated, json)
         SELECT * FROM unnest($1::bytea[], $2::bigint[], $3::boolean[], $4::text[])
         ON CONFLICT (hash) DO NOTHING RETURNING id, hash`,
        [
          missing.map(([, b]) => b.hash),
          missing.map(([, b]) => b.bytes),
          missing.map(([, b]) => b.truncated),
          missing.map(([, b]) => b.json),
        ],
      );
      found(inserted.rows);
      // Written by another process between our look-up and insert: visible to a new statement.
      const raced = missing.filter(([json]) => !this.ids.has(json));
      if (raced.length > 0)
        found(
          (
            await client.query<{ id: number; hash: Buffer }>(
              "SELECT id, hash FROM niceeval.blobs WHERE hash = ANY($1::bytea[])",
              [raced.map(([, b]) => b.hash)],
            )
          ).rows,
        );
    }
    this.#pending.clear();
  }
}

/** Read blobs by id: their values, or the {@link TruncatedValue} marker of a cut one. */
export async function readBlobs(
  client: pg.ClientBase | pg.Pool,
  ids: Iterable<number>,
  into: Map<number, unknown>,
): Promise<void> {
  const wanted = [...new Set(ids)].filter((id) => !into.has(id));
  if (wanted.length === 0) return;
  const { rows } = await client.query<{
    id: number;
    bytes: number;
    truncated: boolean;
    json: string;
  }>("SELECT id, bytes, truncated, json FROM niceeval.blobs WHERE id = ANY($1::bigint[])", [
    wanted,
  ]);
  for (const row of rows) {
    if (row.truncated) {
      const marker: TruncatedValue = { "~truncated": true, bytes: row.bytes, head: row.json };
      into.set(row.id, marker);
    } else into.set(row.id, JSON.parse(row.json));
  }
}
