import Database from "better-sqlite3";
import { NiceevalError } from "../../errors.js";
import type { AttemptRecord, Verdict } from "../../eval/record.js";
import type { RunOrigin } from "../../eval/run-origin.js";
import { wellFormedText } from "../../json-safe.js";
import type { KnownKeys } from "../../known-keys.js";
import { runNotFound, type StoreAdvice, storeAdvice } from "../advice.js";
import { checkAttemptRecords } from "../attempt-fields.js";
import { checkAttemptQuery, MAX_PAGE } from "../attempt-query.js";
import { checkBeginRunOptions } from "../begin-options.js";
import { damagedRowError } from "../damaged-row.js";
import {
  checkJoin,
  checkResumable,
  endedManifest,
  resumedManifest,
  writableEnd,
  writableManifest,
} from "../manifest.js";
import { checkOpenOptions } from "../open-options.js";
import { readOnlyStore } from "../read-only.js";
import { checkedByWriter, checkRunListQuery, shownAs, storedStatuses } from "../run-list-query.js";
import {
  COUNTERS,
  type Contribution,
  countAttempt,
  cutCell,
  type Delta,
  retiredDelta,
  type StoredRunRow,
  storedRun,
  zeroDelta,
} from "../totals.js";
import type {
  AttemptKey,
  AttemptPage,
  AttemptQuery,
  BeginRunOptions,
  ReplacedAttempt,
  RunEnd,
  RunListQuery,
  RunManifest,
  RunStatus,
  Store,
  StoredRun,
} from "../types.js";
import { withAppendThread } from "./append-thread.js";
import { AttemptInserts } from "./attempt-inserts.js";
import {
  ATTEMPT_COLUMNS,
  type AttemptRow,
  CASE_ID,
  CASE_INDEX,
  type Cell,
  COLUMNS,
  type DecodeContext,
  decodeAttempt,
  EARNED,
  type EncodedBatch,
  ERROR,
  EVAL,
  encodeColumns,
  INPUT,
  JUDGMENTS,
  type JudgmentKind,
  judgmentsMemo,
  LARGE,
  MAX,
  OUTPUT,
  REASONS,
  SCORE_STATE,
  SEARCH,
  STRIDE,
  type StoredJudgment,
  searchBlobs,
  searchText,
  TRACE,
  TRIAL,
  type ValueCell,
  VERDICT,
} from "./codec.js";
import { movedError, rescueMoved } from "./moved-file.js";
import {
  busyError,
  diskError,
  isBusy,
  isCorruption,
  isDiskError,
  isSqliteError,
  openDatabase,
  storeFileError,
} from "./open.js";
import { type OpenedFile, openedFile, stillAt } from "./opened-file.js";
import { attemptFilter, attemptOrder } from "./query.js";
import { openDatabaseToRead } from "./read-copy.js";
import { ReasonDictionary } from "./reasons.js";
import { VERDICT_CODE } from "./schema.js";
import { SharedCells } from "./shared-cells.js";
import { BlobTable } from "./values.js";

/** Options of {@link openSqliteStore}. */
export interface SqliteStoreOptions {
  /** Largest value kept whole, in bytes of JSON (default 16 MiB); a larger one is kept as its head. */
  valueCapBytes?: number | undefined;
  /** How long a write waits for another process holding the store (default 5000 ms). */
  busyTimeoutMs?: number | undefined;
  /** Append attempts on a worker thread with its own connection (the CLI's runs do). */
  appendThread?: boolean | undefined;
  /**
   * Only read (writes are refused): a store SQLite cannot use where it is (a read-only file or
   * folder) is then read from a private copy, as it was when opened (default false).
   */
  readOnly?: boolean | undefined;
}

/**
 * Open the SQLite store at `path` (its folder is created; the CLI's default is
 * `.niceeval/niceeval.sqlite`). A file that is not a niceeval store, is damaged, or was written by
 * a newer niceeval is refused with a {@link NiceevalError} and left untouched.
 *
 * @example
 * const store = await openSqliteStore(".niceeval/niceeval.sqlite");
 * const [latest] = await store.listRuns({ limit: 1 });
 */
export async function openSqliteStore(
  path: string,
  options: SqliteStoreOptions = {},
): Promise<Store> {
  checkOpenOptions("openSqliteStore", options, sqliteStoreKeys);
  return openSqliteFor("code", path, options);
}

const sqliteStoreKeys = {
  valueCapBytes: true,
  busyTimeoutMs: true,
  appendThread: true,
  readOnly: true,
} satisfies KnownKeys<SqliteStoreOptions>;

/**
 * {@link openSqliteStore} for a caller: its errors advise the CLI's flags (`--store`) to the CLI
 * (open-store.ts), the functions code calls to code.
 */
export function openSqliteFor(
  origin: RunOrigin,
  path: string,
  options: SqliteStoreOptions = {},
): Store {
  const advice = storeAdvice(origin);
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  const valueCapBytes = options.valueCapBytes ?? 16 * 2 ** 20;
  if (options.readOnly) {
    const { db, file, removeCopy } = openDatabaseToRead(path, busyTimeoutMs, advice);
    const store = new SqliteStore(db, file, valueCapBytes, busyTimeoutMs, advice, path);
    return readOnlyStore(store, {
      location: `sqlite:${path}`,
      ...(removeCopy ? { onClose: removeCopy } : {}),
    });
  }
  const db = openDatabase(path, busyTimeoutMs, { advice });
  const store = new SqliteStore(db, path, valueCapBytes, busyTimeoutMs, advice).watchFile();
  const file = store.openedFile;
  return options.appendThread
    ? withAppendThread(store, path, { valueCapBytes, busyTimeoutMs, origin, file })
    : store;
}

/**
 * The append connection's page cache, MiB: appends write at the end of the run's B-trees, so a
 * small cache serves them as well as the readers' large one, and the run's process holds tens of
 * megabytes less.
 */
const APPEND_CACHE_MIB = 8;

/** The append thread's own connection: it appends batches encoded on the engine's thread. */
export function openSqliteAppender(
  given: string,
  options: AppenderOptions,
): { appendEncoded(runId: string, batch: EncodedBatch): void } {
  // The path as the run's connection resolved it: the working folder may have changed since.
  const path = options.file?.path ?? given;
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  const advice = storeAdvice(options.origin);
  // Started mid-run, the thread opens the file the run's connection did: never a new store where
  // that one was deleted, nor a file put in its place (the run's connection then finds the move).
  if (options.file && !stillAt(options.file))
    throw new NiceevalError("STORE_MOVED", `the store file ${path} was deleted or replaced`);
  return new SqliteStore(
    openDatabase(path, busyTimeoutMs, { cacheMiB: APPEND_CACHE_MIB, advice }),
    path,
    options.valueCapBytes ?? 16 * 2 ** 20,
    busyTimeoutMs,
    advice,
  ).watchFile(options.file);
}

/** What the append thread opens its connection with. */
export interface AppenderOptions {
  valueCapBytes?: number;
  busyTimeoutMs?: number;
  origin?: RunOrigin;
  /** The file the run's connection opened, which the thread's must be. */
  file?: OpenedFile | undefined;
}

interface RunRow extends StoredRunRow {
  rid: number;
  id: string;
}

const SELECT_ATTEMPT = `SELECT a.id, a.ev, ${ATTEMPT_COLUMNS.map((c) => `a.${c}`).join(", ")} FROM attempts a`;
const INSERT_ATTEMPT = `INSERT INTO attempts (rid, ev, ${ATTEMPT_COLUMNS.join(", ")})
  VALUES (?, ?, ${ATTEMPT_COLUMNS.map(() => "?").join(", ")})`;
const UPSERT_ATTEMPT = `${INSERT_ATTEMPT}
  ON CONFLICT (rid, ev, case_id, trial) DO UPDATE SET
  ${ATTEMPT_COLUMNS.map((c) => `${c} = excluded.${c}`).join(", ")} RETURNING id`;
const ARCHIVE_ATTEMPT = `INSERT INTO attempt_history (id, rid, ev, replaced_at, ${ATTEMPT_COLUMNS.join(", ")})
  SELECT id, rid, ev, ?, ${ATTEMPT_COLUMNS.join(", ")} FROM attempts
  WHERE rid = ? AND ev = ? AND case_id = ? AND trial = ?`;
/**
 * 1 when a stored attempt is one the run's stop cut off (errored, `error.interrupted`), else 0:
 * its share of `run_evals.interrupted`. An error cell that is not JSON (edited by hand) is not.
 */
const CUT = `CASE WHEN verdict = ${VERDICT_CODE.errored} AND json_valid(error)
  THEN json_extract(error, '$.interrupted') IS 1 ELSE 0 END`;
const SELECT_STORED = `SELECT ${ATTEMPT_COLUMNS.join(", ")} FROM attempts
  WHERE rid = ? AND ev = ? AND case_id = ? AND trial = ?`;
const INSERT_TEXT =
  "INSERT OR REPLACE INTO attempt_text (rid, id, search, reasons, blobs) VALUES (?, ?, ?, ?, ?)";

/** What a batch knows of an attempt stored before it, or earlier in it; `other`: its case's other trials. */
interface StoredAttempt extends Contribution {
  trial: number;
  case_index: number;
  other?: StoredAttempt;
}

/** A batch's eval in the run: its `ev`, its cases before the batch, and whether the batch added it. */
interface EvalRow {
  ev: number;
  cases: number;
  created: boolean;
}

class SqliteStore implements Store {
  readonly location: string;
  readonly #db: Database.Database;
  readonly #blobs: BlobTable;
  readonly #reasons: ReasonDictionary;
  readonly #shared: SharedCells;
  readonly #readers = new Set<Database.Database>();
  readonly #kindIds = new Map<string, number>();
  readonly #kinds = new Map<number, JudgmentKind>();
  readonly #lastKind = new Map<string, Omit<JudgmentKind, "label"> & { id: number }>();
  readonly #statements = new Map<string, Database.Statement>();
  readonly #judgmentsMemo = judgmentsMemo();
  /** Prepared on the first append (a store opened to read never prepares them). */
  #inserts: AttemptInserts | undefined;
  readonly #decode: DecodeContext;
  #closed = false;
  /** The file a writer opened, which each write first checks is still at its path. */
  #file: OpenedFile | undefined;
  /** Why writes are refused: the file was deleted or replaced (moved-file.ts). */
  #moved: NiceevalError | undefined;

  /**
   * @param path The file the connections read: the store's, or a private copy of it.
   * @param advice How its errors word what to do, for whoever opened it.
   * @param shownPath The store's own file, which messages about its contents name.
   */
  constructor(
    db: Database.Database,
    readonly path: string,
    capBytes: number,
    readonly busyTimeoutMs: number,
    readonly advice: StoreAdvice,
    readonly shownPath = path,
  ) {
    this.location = `sqlite:${path}`;
    this.#db = db;
    this.#blobs = new BlobTable(db, capBytes);
    this.#reasons = new ReasonDictionary(db);
    this.#shared = new SharedCells(db);
    this.#decode = {
      kind: (id) => this.#kind(id),
      blob: (id) => this.#blobs.get(id),
      shared: (cell) => this.#shared.text(cell),
    };
    db.function("niceeval_contains", { deterministic: true }, (haystack, needle) =>
      typeof haystack === "string" && typeof needle === "string"
        ? Number(haystack.toLowerCase().includes(needle))
        : 0,
    );
    let listed: { json: string; ids: Set<string> } | undefined;
    db.function("niceeval_has_any", { deterministic: true }, (list, json) => {
      if (typeof list !== "string" || typeof json !== "string") return 0;
      if (listed?.json !== json)
        listed = { json, ids: new Set((JSON.parse(json) as number[]).map(String)) };
      const ids = listed.ids;
      return Number(
        list
          .slice(1, -1)
          .split(",")
          .some((id) => ids.has(id)),
      );
    });
  }

  #sql<R = unknown>(sql: string): Database.Statement<unknown[], R> {
    let statement = this.#statements.get(sql);
    if (!statement) {
      // Query shapes vary with their filters; a bound keeps the cache from growing without end.
      if (this.#statements.size >= 256) this.#statements.clear();
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement as Database.Statement<unknown[], R>;
  }

  /** Check the file at the path before each write: a writer's connection (not a reader's). */
  watchFile(file = openedFile(this.path)): this {
    this.#file = file;
    return this;
  }

  /** The file a writer opened (undefined for a reader). */
  get openedFile(): OpenedFile | undefined {
    return this.#file;
  }

  /** Refuse a write once the store's file is no longer at its path, saving what it held. */
  #checkFile(runId: string): void {
    if (this.#moved) throw this.#moved;
    const file = this.#file;
    if (!file || stillAt(file)) return;
    this.#moved = movedError(file.path, rescueMoved(this.#db, file.path), this.advice, runId);
    throw this.#moved;
  }

  /** Run `body`, turning SQLite's low-level failures into errors that name the file and the fix. */
  #guard<T>(body: () => T): T {
    if (this.#closed)
      throw new NiceevalError("STORE_CLOSED", `the store ${this.path} is closed; open it again.`);
    try {
      return body();
    } catch (error) {
      if (error instanceof NiceevalError) throw error;
      if (isCorruption(error))
        throw storeFileError(
          "STORE_CORRUPT",
          this.path,
          (error as Error).message,
          this.advice,
          error,
        );
      if (isBusy(error)) throw busyError(this.path, this.busyTimeoutMs, this.advice, error);
      if (isDiskError(error)) throw diskError(this.path, error, this.advice);
      throw error;
    }
  }

  // ── Runs ──

  async beginRun(given: RunManifest, options: BeginRunOptions = {}): Promise<void> {
    const manifest = writableManifest(given);
    checkBeginRunOptions(options);
    this.#guard(() => {
      this.#checkFile(manifest.runId);
      return this.#db
        .transaction(() => {
          const exists = this.#sql<{ rid: number; manifest: string; status: RunStatus }>(
            "SELECT rid, manifest, status FROM runs WHERE id = ?",
          ).get(manifest.runId);
          if (exists && options.resume) {
            const stored = JSON.parse(exists.manifest) as RunManifest;
            checkResumable(exists.status, stored, options.force === true, this.advice);
            this.#sql(
              "UPDATE runs SET status = 'running', ended_at = NULL, manifest = ? WHERE rid = ?",
            ).run(JSON.stringify(resumedManifest(stored, manifest)), exists.rid);
            for (const key of options.retire ?? []) this.#retire(exists.rid, key);
          }
          if (exists && (options.join || options.resume)) {
            // Another writer of the run: its evals not in the run yet come after the run's.
            if (!options.resume)
              checkJoin(JSON.parse(exists.manifest) as RunManifest, manifest, this.path);
            const evs = this.#evalIds(exists.rid);
            const known = new Set(evs.values());
            // A loop, not Math.max(...): a run of some 120,000 evals overflows the stack as arguments.
            let next = 0;
            for (const ev of evs.keys()) next = Math.max(next, ev + 1);
            for (const e of manifest.evals)
              if (!known.has(e.evalId))
                this.#sql("INSERT INTO run_evals (rid, ev, eval_id) VALUES (?, ?, ?)").run(
                  exists.rid,
                  next++,
                  e.evalId,
                );
            return;
          }
          if (exists)
            throw new NiceevalError(
              "RUN_EXISTS",
              `a run with id ${manifest.runId} is already in ${this.path}; every run needs a new id (or join it as another writer).`,
            );
          const { rid } = this.#sql<{ rid: number }>(
            `INSERT INTO runs (id, name, branch, commit_sha, status, started_at, manifest)
             VALUES (?, ?, ?, ?, 'running', ?, ?) RETURNING rid`,
          ).get(
            manifest.runId,
            manifest.name ?? null,
            manifest.git?.branch ?? null,
            manifest.git?.commit ?? null,
            manifest.startedAt,
            JSON.stringify(manifest),
          )!;
          for (const [key, value] of Object.entries(manifest.tags))
            this.#sql("INSERT INTO run_tags (rid, key, value) VALUES (?, ?, ?)").run(
              rid,
              key,
              value,
            );
          manifest.evals.forEach((e, ev) => {
            this.#sql("INSERT OR IGNORE INTO run_evals (rid, ev, eval_id) VALUES (?, ?, ?)").run(
              rid,
              ev,
              e.evalId,
            );
          });
        })
        .immediate();
    });
  }

  /** The run's row id; `to`: whether the caller reads or writes it, for the advice if not found. */
  #rid(runId: string, to: "read" | "write"): number {
    const row = this.#sql<{ rid: number }>("SELECT rid FROM runs WHERE id = ?").get(runId);
    if (!row) throw runNotFound(runId, this.shownPath, this.advice, to);
    return row.rid;
  }

  async finishRun(runId: string, given: RunEnd): Promise<void> {
    const end = writableEnd(given);
    this.#guard(() => {
      this.#checkFile(runId);
      return this.#db
        .transaction(() => {
          const row = this.#sql<{ manifest: string }>("SELECT manifest FROM runs WHERE id = ?").get(
            runId,
          );
          if (!row) this.#rid(runId, "write");
          const manifest = endedManifest(JSON.parse(row!.manifest) as RunManifest, end);
          this.#sql(
            "UPDATE runs SET status = ?, ended_at = ?, summaries = ?, manifest = ? WHERE id = ?",
          ).run(
            end.status,
            end.endedAt ?? null,
            JSON.stringify(end.summaries),
            JSON.stringify(manifest),
            runId,
          );
        })
        .immediate();
    });
  }

  async getRun(runId: string): Promise<StoredRun | undefined> {
    return this.#guard(() => {
      const row = this.#sql<RunRow>(
        "SELECT rid, id, status, ended_at, manifest, summaries FROM runs WHERE id = ?",
      ).get(runId);
      return row ? this.#storedRuns([row])[0] : undefined;
    });
  }

  async listRuns(query: RunListQuery = {}): Promise<StoredRun[]> {
    checkRunListQuery(query);
    return this.#guard(() => {
      const where: string[] = [];
      const params: unknown[] = [];
      if (query.evalId !== undefined) {
        where.push("EXISTS (SELECT 1 FROM run_evals e WHERE e.rid = r.rid AND e.eval_id = ?)");
        params.push(query.evalId);
      }
      if (query.branch !== undefined) {
        where.push("r.branch = ?");
        params.push(query.branch);
      }
      if (query.status !== undefined) {
        const statuses = storedStatuses(query.status);
        where.push(`r.status IN (${statuses.map(() => "?").join(", ")})`);
        params.push(...statuses);
      }
      for (const [key, value] of Object.entries(query.tags ?? {})) {
        where.push(
          "EXISTS (SELECT 1 FROM run_tags t WHERE t.rid = r.rid AND t.key = ? AND t.value = ?)",
        );
        params.push(key, value);
      }
      // A running or crashed run is told by its writer, after reading: the limit is applied then.
      const limit = query.limit === undefined || checkedByWriter(query.status) ? -1 : query.limit;
      const rows = this.#sql<RunRow>(
        `SELECT r.rid, r.id, r.status, r.ended_at, r.manifest, r.summaries FROM runs r
         ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
         ORDER BY r.started_at DESC, r.rid DESC LIMIT ?`,
      ).all(...params, limit);
      return shownAs(this.#storedRuns(rows), query.status, query.limit);
    });
  }

  #storedRuns(rows: readonly RunRow[]): StoredRun[] {
    if (rows.length === 0) return [];
    const sums = new Map<number, { evals: number; d: Delta }>();
    const evalRows = this.#sql<Delta & { rid: number }>(
      "SELECT * FROM run_evals WHERE rid IN (SELECT value FROM json_each(?))",
    ).all(JSON.stringify(rows.map((r) => r.rid)));
    for (const e of evalRows) {
      let sum = sums.get(e.rid);
      if (!sum) {
        sum = { evals: 0, d: zeroDelta() };
        sums.set(e.rid, sum);
      }
      if (e.attempts > 0) sum.evals++;
      for (const c of COUNTERS) sum.d[c] += e[c];
    }
    return rows.map((row) => {
      const { evals, d } = sums.get(row.rid) ?? { evals: 0, d: zeroDelta() };
      return storedRun(row, evals, d);
    });
  }

  // ── Attempts ──

  async appendAttempts(runId: string, records: readonly AttemptRecord[]): Promise<void> {
    // Anything but an empty list goes to encode, which checks the records.
    if (Array.isArray(records) && records.length === 0) return;
    this.appendEncoded(runId, this.encode(records));
  }

  /**
   * A batch of records as {@link EncodedBatch} cells, ready for {@link appendEncoded} here or on
   * the append thread. Only new judgment kinds are written (each in its own statement: kinds are
   * shared and harmless if the batch then fails); values too large to be inline are left for the
   * append to store as blobs.
   */
  encode(records: readonly AttemptRecord[]): EncodedBatch {
    checkAttemptRecords(records);
    return this.#guard(() => {
      const evalIds: string[] = [];
      // Filled in order from empty, so the array stays packed: V8 copies a holey array to another
      // thread element by element, as it would an object.
      const cells: Cell[] = [];
      let deferred = false;
      const context = {
        kindId: (kind: JudgmentKind) => this.#kindId(kind),
        memo: this.#judgmentsMemo,
        putValue: (json: string) => {
          if (!this.#blobs.isInline(json)) deferred = true;
          return json;
        },
      };
      for (let r = 0; r < records.length; r++) {
        const record = records[r]!;
        const at = r * STRIDE;
        deferred = false;
        encodeColumns(record, cells, at, context);
        cells[at + SEARCH] = searchText(record);
        let e = evalIds.indexOf(record.evalId);
        if (e < 0) e = evalIds.push(record.evalId) - 1;
        cells[at + EVAL] = e;
        cells[at + LARGE] = deferred ? 1 : 0;
      }
      return { evalIds, cells };
    });
  }

  /** Append a batch from {@link encode} in one transaction. */
  appendEncoded(runId: string, batch: EncodedBatch): void {
    if (batch.cells.length === 0) return;
    try {
      this.#guard(() => {
        this.#checkFile(runId);
        this.#db.transaction(() => this.#append(runId, batch)).immediate();
      });
    } catch (error) {
      // Reason and shared cell ids cached during a rolled-back batch may not exist.
      this.#reasons.reset();
      this.#shared.reset();
      throw error;
    }
  }

  #append(runId: string, batch: EncodedBatch): void {
    const rid = this.#rid(runId, "write");
    const { cells } = batch;
    const rows = this.#evalRows(rid, batch.evalIds);
    /** The run's `ev` of each of the batch's evals. */
    const evOf = rows.map((row) => row.ev);
    const stored = this.#storedKeys(rid, rows, cells);
    const deltas = evOf.map(() => zeroDelta());
    this.#inserts ??= new AttemptInserts(this.#db);
    const inserts = this.#inserts;
    inserts.begin();
    const upsert = this.#sql<{ id: number }>(UPSERT_ATTEMPT);
    const text = this.#sql(INSERT_TEXT);
    let replacedAt: string | undefined;
    const blobs = this.#blobs;
    const shared = this.#shared;
    const values: Cell[] = [];
    for (let at = 0; at < cells.length; at += STRIDE) {
      const e = cells[at + EVAL] as number;
      const ev = evOf[e]!;
      const delta = deltas[e]!;
      const trial = cells[at + TRIAL] as number;
      const caseId = cells[at + CASE_ID] as string;
      const cases = stored[e]!;
      const known = cases.get(caseId);
      let old: StoredAttempt | undefined = known;
      while (old && old.trial !== trial) old = old.other;
      let index = cells[at + CASE_INDEX] as number | null;
      if (index === null)
        // A new case goes after every case its eval has so far.
        index = old ? old.case_index : (known?.case_index ?? rows[e]!.cases + delta.cases);
      if (!old && !known) delta.cases++;
      if (cells[at + LARGE] === 1)
        cells[at + JUDGMENTS] = this.#withBlobs(cells[at + JUDGMENTS] as string);
      cells[at + JUDGMENTS] = shared.share(cells[at + JUDGMENTS] as string);
      const reasons = cells[at + REASONS] as string | null;
      if (reasons !== null) cells[at + REASONS] = shared.share(reasons);
      for (let c = INPUT; c <= TRACE; c++) {
        const value = cells[at + c];
        if (typeof value === "string") cells[at + c] = blobs.put(value);
      }
      const verdict = cells[at + VERDICT] as number;
      const scoreState = cells[at + SCORE_STATE] as number;
      const earned = cells[at + EARNED] as number;
      const max = cells[at + MAX] as number;
      const cut = verdict === VERDICT_CODE.errored ? cutCell(cells[at + ERROR]) : 0;
      // One array bound for every row: `rid`, `ev`, then the row's columns.
      values[0] = rid;
      values[1] = ev;
      for (let c = 0; c < COLUMNS; c++) values[c + 2] = cells[at + c]!;
      values[2 + CASE_INDEX] = index;
      // A key known to be new is a plain insert, queued; one stored before (or earlier in this
      // batch) an upsert, once what is queued is in the table.
      if (old) inserts.flush();
      // The same attempt again (an export imported twice): nothing to replace, no history.
      if (old && this.#storedAlike(values, rid, ev, caseId, trial)) continue;
      const reasonIds = this.#reasons.idsOf(rid, reasons);
      const blobIds = searchBlobs({
        input: cells[at + INPUT] as ValueCell,
        output: cells[at + OUTPUT] as ValueCell,
      });
      if (old) {
        replacedAt ??= new Date().toISOString();
        this.#sql(ARCHIVE_ATTEMPT).run(replacedAt, rid, ev, caseId, trial);
        const id = upsert.get(values)!.id;
        inserts.forgetIds();
        text.run(rid, id, cells[at + SEARCH], reasonIds, blobIds);
        countAttempt(delta, old, -1);
      } else inserts.add(values, cells[at + SEARCH]!, reasonIds, blobIds);
      if (old) {
        old.case_index = index;
        old.verdict = verdict;
        old.score_state = scoreState;
        old.earned = earned;
        old.max = max;
        old.cut = cut;
      } else {
        old = { trial, case_index: index, verdict, score_state: scoreState, earned, max, cut };
        if (known) old.other = known;
        cases.set(caseId, old);
      }
      countAttempt(delta, old, 1);
    }
    inserts.flush();
    const update = this.#sql(
      `UPDATE run_evals SET ${COUNTERS.map((c) => `${c} = ${c} + ?`).join(", ")} WHERE rid = ? AND ev = ?`,
    );
    deltas.forEach((d, e) => {
      update.run(...COUNTERS.map((c) => d[c]), rid, evOf[e]);
    });
  }

  /**
   * Whether the stored row of this key holds exactly `values` (`rid`, `ev`, then the columns),
   * reading shared judgments and reasons cells as their text (one side may be inline).
   */
  #storedAlike(values: readonly Cell[], rid: number, ev: number, caseId: string, trial: number) {
    const row = this.#sql(SELECT_STORED).raw().get(rid, ev, caseId, trial) as Cell[] | undefined;
    if (!row) return false;
    for (let c = 0; c < COLUMNS; c++) {
      let stored = row[c];
      let given = values[c + 2];
      if (
        (c === JUDGMENTS || c === REASONS) &&
        typeof stored === "string" &&
        typeof given === "string"
      ) {
        stored = this.#shared.text(stored);
        given = this.#shared.text(given);
      }
      if (stored !== given) return false;
    }
    return true;
  }

  /**
   * The run's row of each of a batch's evals, in the batch's order: one query for those the run
   * has, and a row added (after the run's last `ev`) for each it has not seen yet.
   */
  /** Move a stored attempt to the run's history and out of its eval's totals (see BeginRunOptions.retire). */
  #retire(rid: number, key: { evalId: string; caseId: string; trial: number }): void {
    const row = this.#sql<Contribution & { id: number; ev: number }>(
      `SELECT a.id, a.ev, a.verdict, a.score_state, a.earned, a.max, ${CUT} AS cut FROM attempts a
       JOIN run_evals e ON e.rid = a.rid AND e.ev = a.ev
       WHERE a.rid = ? AND e.eval_id = ? AND a.case_id = ? AND a.trial = ?`,
    ).get(rid, key.evalId, key.caseId, key.trial);
    if (!row) return;
    this.#sql(ARCHIVE_ATTEMPT).run(new Date().toISOString(), rid, row.ev, key.caseId, key.trial);
    this.#sql("DELETE FROM attempt_text WHERE rid = ? AND id = ?").run(rid, row.id);
    this.#sql("DELETE FROM attempts WHERE id = ?").run(row.id);
    const left = this.#sql("SELECT 1 FROM attempts WHERE rid = ? AND ev = ? AND case_id = ?").get(
      rid,
      row.ev,
      key.caseId,
    );
    const delta = retiredDelta(row, left === undefined);
    this.#sql(
      `UPDATE run_evals SET ${COUNTERS.map((c) => `${c} = ${c} + ?`).join(", ")} WHERE rid = ? AND ev = ?`,
    ).run(...COUNTERS.map((c) => delta[c]), rid, row.ev);
  }

  #evalRows(rid: number, evalIds: readonly string[]): EvalRow[] {
    const found = new Map<string, EvalRow>();
    for (const row of this.#sql<{ ev: number; eval_id: string; cases: number }>(
      "SELECT ev, eval_id, cases FROM run_evals WHERE rid = ? AND eval_id IN (SELECT value FROM json_each(?))",
    ).all(rid, JSON.stringify(evalIds)))
      found.set(row.eval_id, { ev: row.ev, cases: row.cases, created: false });
    let next: number | undefined;
    return evalIds.map((evalId) => {
      const row = found.get(evalId);
      if (row) return row;
      next ??= this.#sql<{ next: number }>(
        "SELECT coalesce(max(ev) + 1, 0) AS next FROM run_evals WHERE rid = ?",
      ).get(rid)!.next;
      const ev = next++;
      this.#sql("INSERT INTO run_evals (rid, ev, eval_id) VALUES (?, ?, ?)").run(rid, ev, evalId);
      return { ev, cases: 0, created: true };
    });
  }

  /** A judgments cell whose large details are inline, with each of those moved to a blob. */
  #withBlobs(judgments: string): string {
    const list = JSON.parse(judgments) as StoredJudgment[];
    for (const j of list)
      if ("d" in j) {
        const put = this.#blobs.put(JSON.stringify(j.d));
        if (typeof put === "number") {
          delete j.d;
          j.D = put;
        }
      }
    return JSON.stringify(list);
  }

  /**
   * What is already stored of a batch's cases, in one query per eval: per eval (in the batch's
   * order), each case id's stored attempts (trials linked through `other`).
   */
  #storedKeys(rid: number, rows: readonly EvalRow[], cells: readonly Cell[]) {
    const stored = rows.map(() => new Map<string, StoredAttempt>());
    const ids = rows.map((): string[] => []);
    for (let at = 0; at < cells.length; at += STRIDE)
      ids[cells[at + EVAL] as number]!.push(cells[at + CASE_ID] as string);
    const select = this.#sql<StoredAttempt & { case_id: string }>(
      `SELECT case_id, trial, verdict, score_state, earned, max, case_index, ${CUT} AS cut FROM attempts
       WHERE rid = ? AND ev = ? AND case_id IN (SELECT value FROM json_each(?))`,
    );
    rows.forEach(({ ev, created }, e) => {
      // An eval this batch added to the run has nothing stored yet.
      if (created) return;
      const cases = stored[e]!;
      for (const row of select.all(rid, ev, JSON.stringify(ids[e]))) {
        const other = cases.get(row.case_id);
        if (other) row.other = other;
        cases.set(row.case_id, row);
      }
    });
    return stored;
  }

  #kindId(kind: JudgmentKind): number {
    // The judgments of one suite's attempts come in the same order, so the last kind seen at a
    // judgment's label is almost always its kind.
    const last = this.#lastKind.get(kind.label);
    if (
      last &&
      last.source === kind.source &&
      last.gate === !!kind.gate &&
      last.points === kind.points
    )
      return last.id;
    const key = `${kind.label}\u0000${kind.source}\u0000${kind.gate}\u0000${kind.points}`;
    let id = this.#kindIds.get(key);
    if (id === undefined) {
      // A lone surrogate as U+FFFD, as in the attempts' JSON cells, here and as read back.
      const label = wellFormedText(kind.label);
      const source = wellFormedText(kind.source);
      const params = [label, source, kind.gate ? 1 : 0, kind.points];
      // Another connection (the append thread, another writer) may add the same kind at once.
      id =
        this.#sql<{ id: number }>(
          `INSERT INTO judgment_kinds (label, source, gate, points) VALUES (?, ?, ?, ?)
           ON CONFLICT DO NOTHING RETURNING id`,
        ).get(...params)?.id ??
        this.#sql<{ id: number }>(
          "SELECT id FROM judgment_kinds WHERE label = ? AND source = ? AND gate = ? AND points = ?",
        ).get(...params)!.id;
      this.#kindIds.set(key, id);
      this.#kinds.set(id, {
        label,
        source,
        gate: !!kind.gate,
        points: kind.points,
      });
    }
    this.#lastKind.set(kind.label, {
      id,
      source: kind.source,
      gate: !!kind.gate,
      points: kind.points,
    });
    return id;
  }

  #kind(id: number): JudgmentKind {
    let kind = this.#kinds.get(id);
    if (!kind) {
      const row = this.#sql<{ label: string; source: string; gate: number; points: number }>(
        "SELECT label, source, gate, points FROM judgment_kinds WHERE id = ?",
      ).get(id);
      kind = row
        ? { label: row.label, source: row.source, gate: row.gate === 1, points: row.points }
        : { label: `(unknown judgment ${id})`, source: "store", gate: false, points: 0 };
      this.#kinds.set(id, kind);
    }
    return kind;
  }

  /**
   * A row as its record. One that does not decode (edited by hand) is an error naming the file,
   * the run, the case and the cell; SQLite's own failures are left for #guard to name.
   */
  #decodeRow(
    row: AttemptRow & { ev: number },
    runId: string,
    evalIds: Map<number, string>,
  ): AttemptRecord {
    const evalId = evalIds.get(row.ev) ?? "";
    try {
      return decodeAttempt(row, evalId, this.#decode);
    } catch (error) {
      if (error instanceof NiceevalError || isSqliteError(error)) throw error;
      const place = { store: this.shownPath, runId, runName: this.#runName(runId), evalId };
      throw damagedRowError(place, row, this.#decode, error);
    }
  }

  /** A run's name, for an error message; none when it has none or cannot be read. */
  #runName(runId: string): string | undefined {
    try {
      const row = this.#sql<{ name: string | null }>("SELECT name FROM runs WHERE id = ?").get(
        runId,
      );
      return row?.name ?? undefined;
    } catch {
      return undefined;
    }
  }

  #evalIds(rid: number): Map<number, string> {
    const ids = new Map<number, string>();
    for (const e of this.#sql<{ ev: number; eval_id: string }>(
      "SELECT ev, eval_id FROM run_evals WHERE rid = ?",
    ).all(rid))
      ids.set(e.ev, e.eval_id);
    return ids;
  }

  async *streamAttempts(
    runId: string,
    options: { evalId?: string } = {},
  ): AsyncIterable<AttemptRecord> {
    const { rid, evalIds } = this.#guard(() => {
      const rid = this.#rid(runId, "read");
      return { rid, evalIds: this.#evalIds(rid) };
    });
    let ev: number | undefined;
    if (options.evalId !== undefined) {
      ev = [...evalIds].find(([, id]) => id === options.evalId)?.[0];
      if (ev === undefined) return;
    }
    // A connection of its own: iterating holds it, while blobs and kinds are read on the main one.
    const reader = this.#guard(
      () => new Database(this.path, { readonly: true, timeout: this.busyTimeoutMs }),
    );
    this.#readers.add(reader);
    reader.pragma("mmap_size = 268435456");
    let rows: IterableIterator<AttemptRow & { ev: number }> | undefined;
    try {
      rows = reader
        .prepare<unknown[], AttemptRow & { ev: number }>(
          `${SELECT_ATTEMPT} WHERE a.rid = ? ${ev === undefined ? "" : "AND a.ev = ?"}
           ORDER BY a.ev, a.case_index, a.trial, a.id`,
        )
        .iterate(...(ev === undefined ? [rid] : [rid, ev]));
      let batch: AttemptRecord[] = [];
      for (;;) {
        // Rows are decoded in small batches so iteration does not pay a promise per record.
        const next = this.#guard(() => {
          batch = [];
          for (let i = 0; i < 256; i++) {
            const step = rows!.next();
            if (step.done) return true;
            batch.push(this.#decodeRow(step.value, runId, evalIds));
          }
          return false;
        });
        yield* batch;
        if (next) break;
      }
    } finally {
      this.#readers.delete(reader);
      closeReader(reader, rows);
    }
  }

  async *attemptKeys(runId: string): AsyncIterable<AttemptKey> {
    const { rid, evalIds } = this.#guard(() => {
      const rid = this.#rid(runId, "read");
      return { rid, evalIds: this.#evalIds(rid) };
    });
    const verdicts = new Map<number, Verdict>(
      Object.entries(VERDICT_CODE).map(([v, code]) => [code, v as Verdict]),
    );
    // Keys only, off the unique index: no row is decoded.
    const rows = this.#guard(() =>
      this.#sql<{ ev: number; case_id: string; trial: number; verdict: number; cut: number }>(
        `SELECT ev, case_id, trial, verdict, ${CUT} FROM attempts WHERE rid = ?`,
      )
        .raw()
        .all(rid),
    ) as unknown as [number, string, number, number, number][];
    for (const [ev, caseId, trial, verdict, cut] of rows)
      yield {
        ...(cut ? { interrupted: true as const } : {}),
        evalId: evalIds.get(ev) ?? "",
        caseId,
        trial,
        verdict: verdicts.get(verdict) ?? "errored",
      };
  }

  async *attemptHistory(runId: string): AsyncIterable<ReplacedAttempt> {
    const items = this.#guard(() => {
      const rid = this.#rid(runId, "read");
      const evalIds = this.#evalIds(rid);
      return this.#sql<AttemptRow & { ev: number; replaced_at: string }>(
        `SELECT ev, replaced_at, ${ATTEMPT_COLUMNS.join(", ")} FROM attempt_history
         WHERE rid = ? ORDER BY ev, case_index, trial, hid`,
      )
        .all(rid)
        .map((row) => ({
          replacedAt: row.replaced_at,
          record: this.#decodeRow(row, runId, evalIds),
        }));
    });
    yield* items;
  }

  async queryAttempts(runId: string, query: AttemptQuery = {}): Promise<AttemptPage> {
    checkAttemptQuery(query);
    return this.#guard(() => {
      const rid = this.#rid(runId, "read");
      const evalIds = this.#evalIds(rid);
      const filter = attemptFilter(rid, query, {
        ev: (evalId) => [...evalIds].find(([, id]) => id === evalId)?.[0],
        kindIds: (label) =>
          this.#sql<{ id: number }>("SELECT id FROM judgment_kinds WHERE label = ?")
            .all(label)
            .map((r) => r.id),
        reasonIds: (pattern) =>
          this.#sql<{ id: number }>(
            "SELECT id FROM run_reasons WHERE rid = ? AND text LIKE ? ESCAPE '\\'",
          )
            .all(rid, pattern)
            .map((r) => r.id),
      });
      if (!filter) return { total: 0, items: [] };
      const limit = Math.min(MAX_PAGE, query.limit ?? 100);
      const offset = Math.max(0, Math.floor(query.offset ?? 0));
      const order = attemptOrder(query);
      const count = () =>
        this.#sql<{ n: number }>(`SELECT count(*) AS n FROM attempts a WHERE ${filter.where}`).get(
          ...filter.params,
        )!.n;
      let page: { id: number; total?: number }[];
      let total: number;
      if (filter.scansText) {
        // A text scan is the cost: one pass yields the page's ids and the total.
        page = this.#sql<{ id: number; total: number }>(
          `SELECT a.id, count(*) OVER () AS total FROM attempts a WHERE ${filter.where}
           ORDER BY ${order} LIMIT ? OFFSET ?`,
        ).all(...filter.params, Math.max(limit, 1), offset);
        total = page[0]?.total ?? count();
      } else {
        // Index-only: the count and the page's ids come from the covering index, rows after.
        total = count();
        page = this.#sql<{ id: number }>(
          `SELECT a.id FROM attempts a WHERE ${filter.where} ORDER BY ${order} LIMIT ? OFFSET ?`,
        ).all(...filter.params, limit, offset);
      }
      const ids = limit === 0 ? [] : page.map((r) => r.id);
      const rows = new Map<number, AttemptRow & { id: number; ev: number }>();
      for (const row of this.#sql<AttemptRow & { id: number; ev: number }>(
        `${SELECT_ATTEMPT} WHERE a.id IN (SELECT value FROM json_each(?))`,
      ).all(JSON.stringify(ids)))
        rows.set(row.id, row);
      const items: AttemptRecord[] = [];
      for (const id of ids) {
        const row = rows.get(id);
        if (row) items.push(this.#decodeRow(row, runId, evalIds));
      }
      return { total, items };
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    for (const reader of this.#readers) reader.close();
    this.#readers.clear();
    this.#closed = true;
    this.#db.close();
  }
}

/**
 * Close a reading connection whose iteration stopped, however it stopped. A statement that failed
 * mid-iteration (a damaged page) still holds the connection: it is ended first, and a close that
 * fails all the same must not hide the error that stopped the reading.
 */
function closeReader(reader: Database.Database, rows: IterableIterator<unknown> | undefined): void {
  try {
    rows?.return?.();
  } catch {}
  try {
    if (reader.open) reader.close();
  } catch {}
}
