import { createHash } from "node:crypto";
import type Database from "better-sqlite3";

/** Texts kept by either cache before it is dropped (bounds memory on runs of unique texts). */
const CACHE_LIMIT = 4096;
/** Longer texts are never shared: they are rarely repeated, and the caches would hold them. */
const SHARED_MAX_CHARS = 2048;
/** First character of every JSON text these cells hold (an array); an id never starts with it. */
const JSON_ARRAY = 91; // "["

/**
 * Cells that a suite repeats in most of its attempts: the judgments (kind and value of each) and
 * their reasons are often the same text 100,000 times. A text is written inline the first time a
 * writer sees it; from the second time it is stored once in `shared_cells` and the attempt's cell
 * holds its id ("12"). Readers tell the two apart by the first character: JSON arrays start with
 * "[". The ids are the store's, not a run's, so an archived or copied row still reads.
 */
export class SharedCells {
  readonly #find: Database.Statement<[Buffer], { id: number }>;
  readonly #insert: Database.Statement<[Buffer, string], { id: number }>;
  readonly #read: Database.Statement<[number], { text: string }>;
  /** Writing: text → its id, or 0 when seen once and still inline. */
  readonly #ids = new Map<string, number>();
  /** Reading: id → text. */
  readonly #texts = new Map<number, string>();

  constructor(db: Database.Database) {
    this.#find = db.prepare("SELECT id FROM shared_cells WHERE hash = ?");
    this.#insert = db.prepare("INSERT INTO shared_cells (hash, text) VALUES (?, ?) RETURNING id");
    this.#read = db.prepare("SELECT text FROM shared_cells WHERE id = ?");
  }

  /** What to store for a cell's text: the text itself, or the id of its shared copy. */
  share(text: string): string {
    if (text.length > SHARED_MAX_CHARS) return text;
    const id = this.#ids.get(text);
    if (id === undefined) {
      if (this.#ids.size >= CACHE_LIMIT) this.#ids.clear();
      this.#ids.set(text, 0);
      return text;
    }
    if (id > 0) return String(id);
    const digest = createHash("sha256").update(text).digest();
    const shared = this.#find.get(digest)?.id ?? this.#insert.get(digest, text)!.id;
    this.#ids.set(text, shared);
    return String(shared);
  }

  /** The text a stored cell stands for. */
  text(cell: string): string {
    if (cell.charCodeAt(0) === JSON_ARRAY) return cell;
    const id = Number(cell);
    let text = this.#texts.get(id);
    if (text === undefined) {
      text = this.#read.get(id)?.text;
      if (text === undefined) throw new Error(missingText(cell, id));
      if (this.#texts.size >= CACHE_LIMIT) this.#texts.clear();
      this.#texts.set(id, text);
    }
    return text;
  }

  /** Forget the ids written (after a rolled-back write, they may not exist). */
  reset(): void {
    this.#ids.clear();
  }
}

/** Why a cell stands for no text: the id of none stored, or not an id at all. */
function missingText(cell: string, id: number): string {
  if (Number.isSafeInteger(id) && id > 0)
    return `it names shared text ${id}, which the store lacks`;
  const shown = JSON.stringify(cell.length > 40 ? `${cell.slice(0, 40)}…` : cell);
  return `${shown} is neither a JSON list nor the id of a shared text`;
}
