import { createHash } from "node:crypto";
import type Database from "better-sqlite3";

/** Entries of one run's reason cache before it is dropped (bounds memory on runs of unique reasons). */
const CACHE_LIMIT = 50_000;
/** Entries of the cache of whole reason lists (an attempt's `reasons` column) before it is dropped. */
const LIST_CACHE_LIMIT = 4096;

/**
 * Judgment reasons for text queries only (records keep their own): each run's distinct
 * lower-cased reasons once in `run_reasons`, and per attempt the list of their ids in
 * `attempt_text.reasons` (",3,7,"). A suite repeats a handful of reasons 100,000 times, so a
 * query searches the handful, then finds their ids in narrow rows.
 */
export class ReasonDictionary {
  readonly #find: Database.Statement<[number, bigint, string], { id: number }>;
  readonly #insert: Database.Statement<[number, number, bigint, string]>;
  readonly #maxId: Database.Statement<[number], { id: number | null }>;
  /** Per run: lower-cased reason → id, and the next free id. */
  readonly #runs = new Map<number, { ids: Map<string, number>; next: number }>();
  /** Per run: an attempt's `reasons` column (JSON) → its `attempt_text.reasons` list. */
  readonly #lists = new Map<number, Map<string, string>>();

  constructor(db: Database.Database) {
    this.#find = db.prepare(
      "SELECT id FROM run_reasons WHERE rid = ? AND hash = ? AND text = ? LIMIT 1",
    );
    this.#insert = db.prepare("INSERT INTO run_reasons (rid, id, hash, text) VALUES (?, ?, ?, ?)");
    this.#maxId = db.prepare("SELECT max(id) AS id FROM run_reasons WHERE rid = ?");
  }

  #id(rid: number, text: string): number {
    let run = this.#runs.get(rid);
    if (!run) {
      run = { ids: new Map(), next: (this.#maxId.get(rid)?.id ?? 0) + 1 };
      this.#runs.set(rid, run);
    }
    let id = run.ids.get(text);
    if (id !== undefined) return id;
    const hash = createHash("sha1").update(text).digest().readBigInt64BE(0);
    id = this.#find.get(rid, hash, text)?.id;
    if (id === undefined) {
      id = run.next++;
      this.#insert.run(rid, id, hash, text);
    }
    if (run.ids.size >= CACHE_LIMIT) run.ids.clear();
    run.ids.set(text, id);
    return id;
  }

  /** The `attempt_text.reasons` list of an attempt's reasons, or null when it has none. */
  ids(rid: number, reasons: readonly string[]): string | null {
    if (reasons.length === 0) return null;
    const ids = new Set<number>();
    for (const reason of reasons) ids.add(this.#id(rid, reason.toLowerCase()));
    return `,${[...ids].join(",")},`;
  }

  /**
   * The same, from an attempt's `reasons` column (a JSON list of its judgments' reasons): a suite
   * repeats a few combinations of reasons, so a whole list is looked up at once.
   */
  idsOf(rid: number, reasonsJson: string | null): string | null {
    if (reasonsJson === null) return null;
    let lists = this.#lists.get(rid);
    if (!lists) {
      lists = new Map();
      this.#lists.set(rid, lists);
    }
    let ids = lists.get(reasonsJson);
    if (ids === undefined) {
      ids = this.ids(rid, JSON.parse(reasonsJson) as string[]) ?? "";
      if (lists.size >= LIST_CACHE_LIMIT) lists.clear();
      lists.set(reasonsJson, ids);
    }
    return ids === "" ? null : ids;
  }

  /** Forget cached ids (after a rolled-back write, they may not exist). */
  reset(): void {
    this.#runs.clear();
    this.#lists.clear();
  }
}
