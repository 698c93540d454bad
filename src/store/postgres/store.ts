import pg from "pg";
import { NiceevalError } from "../../errors.js";
import { type AttemptRecord, cutOff, type Verdict } from "../../eval/record.js";
import type { RunOrigin } from "../../eval/run-origin.js";
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
import { storeOutageMs } from "../outage.js";
import { readOnlyStore } from "../read-only.js";
import { checkedByWriter, checkRunListQuery, shownAs, storedStatuses } from "../run-list-query.js";
import {
  ATTEMPT_COLUMNS,
  type AttemptRow,
  type DecodeContext,
  decodeAttempt,
  encodeAttempt,
  type JudgmentKind,
  searchBlobs,
  searchText,
} from "../sqlite/codec.js";
import { attemptOrder } from "../sqlite/query.js";
import { VERDICT_CODE } from "../sqlite/schema.js";
import {
  COUNTERS,
  type Contribution,
  countAttempt,
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
import { permissionError } from "./access.js";
import { connectionError, parsePostgresUrl, redactUrl } from "./connection.js";
import { prepareToRead, prepareToWrite } from "./open.js";
import { attemptFilter, Params } from "./query.js";
import { PG_SCHEMA_VERSION, pgCut } from "./schema.js";
import { BlobBatch, fromPgCell, isInline, readBlobs, toPgCell } from "./values.js";

/** Options of {@link openPostgresStore}. */
export interface PostgresStoreOptions {
  /** Largest value kept whole, in bytes of JSON (default 16 MiB); a larger one is kept as its head. */
  valueCapBytes?: number | undefined;
  /** Connections at most (default 4). */
  poolSize?: number | undefined;
  /** How long connecting may take before the store is called unreachable (default 10,000 ms). */
  connectTimeoutMs?: number | undefined;
  /**
   * How long a query may go unanswered before it fails as the store's being unreachable
   * (default 60 s, `NICEEVAL_STORE_OUTAGE_MS`): a paused server or a dead link never says so.
   */
  queryTimeoutMs?: number | undefined;
  /** Attempts per query while streaming (default 1000). */
  streamBatch?: number | undefined;
  /**
   * Wait for the server's disk on every append (default false: appends commit without waiting,
   * so a server crash may lose the last fraction of a second of attempts; runs' beginnings and
   * ends always wait).
   */
  durableAppends?: boolean | undefined;
  /**
   * Only read (writes are refused): nothing is created or migrated. A database without
   * niceeval's schema is then `STORE_NOT_FOUND`; one an older niceeval wrote is read as it is.
   */
  readOnly?: boolean | undefined;
}

/**
 * Open the niceeval store in the PostgreSQL database a URL names (`postgres://user:password@host:5432/db`):
 * its tables live in a `niceeval` schema, created and migrated on first open. Several processes
 * and machines may write at once, even to one run (see `beginRun`'s `join`). An unreachable
 * server, a refused login, a user without the privileges it needs (`STORE_PERMISSION`, naming
 * the GRANT) or a database written by a newer niceeval throws a {@link NiceevalError} naming
 * the server, with the password masked. Opened `readOnly`, it creates and migrates nothing.
 *
 * @example
 * const store = await openPostgresStore("postgres://ci:secret@db.internal:5432/evals");
 * const [latest] = await store.listRuns({ limit: 1 });
 */
export async function openPostgresStore(
  url: string,
  options: PostgresStoreOptions = {},
): Promise<Store> {
  checkOpenOptions("openPostgresStore", options, postgresStoreKeys);
  return openPostgresFor("code", url, options);
}

const postgresStoreKeys = {
  valueCapBytes: true,
  poolSize: true,
  connectTimeoutMs: true,
  queryTimeoutMs: true,
  streamBatch: true,
  durableAppends: true,
  readOnly: true,
} satisfies KnownKeys<PostgresStoreOptions>;

/**
 * {@link openPostgresStore} for a caller: its errors advise the CLI's flags (`--store`) to the
 * CLI (open-store.ts), the functions code calls to code.
 */
export async function openPostgresFor(
  origin: RunOrigin,
  url: string,
  options: PostgresStoreOptions = {},
): Promise<Store> {
  const advice = storeAdvice(origin);
  parsePostgresUrl(url, advice);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 4,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    // A server that takes a query and never answers (paused, a dead link) would hold the run.
    query_timeout: options.queryTimeoutMs ?? storeOutageMs(),
    application_name: "niceeval",
    types: { getTypeParser: typeParser },
  });
  listenForDrops(pool);
  let version = PG_SCHEMA_VERSION;
  try {
    const client = await pool.connect();
    try {
      if (options.readOnly) version = await prepareToRead(client, url, advice);
      else await prepareToWrite(client, url, advice);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end().catch(() => {});
    throw connectionError(url, error, advice) ?? permissionError(url, error, advice) ?? error;
  }
  const store = new PostgresStore(pool, url, version, options, advice);
  return options.readOnly ? readOnlyStore(store) : store;
}

/** int8 (ids, counts) as JS numbers: they stay far below 2^53. */
const typeParser = ((oid: number, format?: string) =>
  oid === 20
    ? Number
    : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser;

interface RunRow extends StoredRunRow {
  rid: number;
  id: string;
}

const VALUE_COLUMNS = ["input", "expected", "metadata", "output", "trace"] as const;
const COLUMN_TYPES: Record<(typeof ATTEMPT_COLUMNS)[number] | "search" | "search_blobs", string> = {
  case_index: "integer",
  trial: "integer",
  case_id: "text",
  verdict: "smallint",
  score_state: "smallint",
  earned: "double precision",
  max: "double precision",
  elapsed_ms: "double precision",
  judgment_states: "integer",
  kinds: "text",
  error: "text",
  judgments: "text",
  reasons: "text",
  rest: "text",
  input: "text",
  expected: "text",
  metadata: "text",
  output: "text",
  trace: "text",
  search: "text",
  search_blobs: "text",
};
const WRITTEN = [...ATTEMPT_COLUMNS, "search", "search_blobs"] as const;
const RECORDSET = (param: string) =>
  `SELECT $1, x.ev, ${WRITTEN.map((c) => `x.${c}`).join(", ")}
   FROM json_to_recordset(${param}::json) AS x(ev integer, ${WRITTEN.map((c) => `${c} ${COLUMN_TYPES[c]}`).join(", ")})`;
/**
 * A batch in one statement: new keys by plain insert (the run's lock makes the look-up that
 * found them new exact), replaced ones by upsert, and the totals they change.
 */
const APPEND = `WITH archived AS (
    INSERT INTO niceeval.attempt_history (id, rid, ev, replaced_at, ${ATTEMPT_COLUMNS.join(", ")})
    SELECT a.id, a.rid, a.ev, $5::text, ${ATTEMPT_COLUMNS.map((c) => `a.${c}`).join(", ")}
    FROM json_to_recordset($3::json) AS k(ev integer, case_id text, trial integer)
    JOIN niceeval.attempts a ON a.rid = $1 AND a.case_id = k.case_id AND a.ev = k.ev AND a.trial = k.trial
  ), fresh AS (
    INSERT INTO niceeval.attempts (rid, ev, ${WRITTEN.join(", ")}) ${RECORDSET("$2")}
  ), replaced AS (
    INSERT INTO niceeval.attempts (rid, ev, ${WRITTEN.join(", ")}) ${RECORDSET("$3")}
    ON CONFLICT (rid, ev, case_id, trial) DO UPDATE SET
    ${WRITTEN.map((c) => `${c} = excluded.${c}`).join(", ")}
  )
  UPDATE niceeval.run_evals r SET ${COUNTERS.map((c) => `${c} = r.${c} + d.${c}`).join(", ")}
  FROM json_to_recordset($4::json) AS d(ev integer, ${COUNTERS.map((c) => `${c} ${c === "score_sum" ? "double precision" : "integer"}`).join(", ")})
  WHERE r.rid = $1 AND r.ev = d.ev`;
const SELECT_ATTEMPT = `SELECT a.id, a.ev, ${ATTEMPT_COLUMNS.map((c) => `a.${c}`).join(", ")} FROM niceeval.attempts a`;

type PgAttemptRow = Omit<AttemptRow, (typeof VALUE_COLUMNS)[number]> &
  Record<(typeof VALUE_COLUMNS)[number], string | null> & { id: number; ev: number };

/** One record of a batch being appended, once its key is known. */
interface Pending {
  record: AttemptRecord;
  /** Index of the first record with this key in the batch (a case keeps its first position). */
  firstIndex: number | undefined;
  row: AttemptRow;
}

/** Attempts of a run from which stale planner statistics are worth an ANALYZE before reading it. */
const ANALYZE_FROM = 2000;

const keyOf = (evalId: string, caseId: string, trial: number) =>
  JSON.stringify([evalId, caseId, trial]);

class PostgresStore implements Store {
  readonly location: string;
  readonly #pool: pg.Pool;
  readonly #url: string;
  readonly #capBytes: number;
  readonly #streamBatch: number;
  readonly #durable: boolean;
  /** The schema version of the database (an older one when opened to read only). */
  readonly #version: number;
  readonly #kindIds = new Map<string, number>();
  readonly #kinds = new Map<number, JudgmentKind>();
  #closed = false;

  constructor(
    pool: pg.Pool,
    url: string,
    version: number,
    options: PostgresStoreOptions,
    /** How its errors word what to do, for whoever opened it. */
    readonly advice: StoreAdvice,
  ) {
    this.#pool = pool;
    this.#url = url;
    this.#version = version;
    this.location = redactUrl(url);
    this.#capBytes = options.valueCapBytes ?? 16 * 2 ** 20;
    this.#streamBatch = options.streamBatch ?? 1000;
    this.#durable = options.durableAppends ?? false;
  }

  /** Run `body`, turning connection failures into errors that name the server and the fix. */
  async #guard<T>(body: () => Promise<T>): Promise<T> {
    if (this.#closed)
      throw new NiceevalError(
        "STORE_CLOSED",
        `the store ${this.location} is closed; open it again.`,
      );
    try {
      return await body();
    } catch (error) {
      if (error instanceof NiceevalError) throw error;
      throw (
        connectionError(this.#url, error, this.advice) ??
        permissionError(this.#url, error, this.advice) ??
        error
      );
    }
  }

  /**
   * `body` in one transaction on one connection; a deadlock or serialization failure is retried.
   * `relaxed`: the commit does not wait for the server's disk, which may lose the last fraction
   * of a second of attempts if the server itself crashes, never corrupts (SQLite's WAL with
   * synchronous=NORMAL gives the same).
   */
  async #transaction<T>(body: (client: pg.PoolClient) => Promise<T>, relaxed = false): Promise<T> {
    return this.#guard(async () => {
      for (let attempt = 1; ; attempt++) {
        const client = await this.#pool.connect();
        /** A connection that failed as such is closed, not handed to the next write. */
        let broken: Error | undefined;
        try {
          await client.query(
            relaxed && !this.#durable ? "BEGIN; SET LOCAL synchronous_commit = off" : "BEGIN",
          );
          const result = await body(client);
          await client.query("COMMIT");
          return result;
        } catch (error) {
          if (this.#lost(error)) broken = error as Error;
          else await client.query("ROLLBACK").catch(() => {});
          const code = (error as { code?: unknown }).code;
          if ((code === "40P01" || code === "40001") && attempt < 5) continue;
          throw error;
        } finally {
          client.release(broken);
        }
      }
    });
  }

  /** The connection itself failed (ended, unanswered): nothing more can be sent on it. */
  #lost(error: unknown): boolean {
    return connectionError(this.#url, error, this.advice) !== undefined;
  }

  /** `to`: whether the caller reads or writes the run, for the advice. */
  #notFound(runId: string, to: "read" | "write"): NiceevalError {
    return runNotFound(runId, this.location, this.advice, to);
  }

  // ── Runs ──

  async beginRun(given: RunManifest, options: BeginRunOptions = {}): Promise<void> {
    const manifest = writableManifest(given);
    checkBeginRunOptions(options);
    await this.#transaction(async (client) => {
      const inserted = await client.query<{ rid: number }>(
        `INSERT INTO niceeval.runs (id, name, branch, commit_sha, status, started_at, manifest)
         VALUES ($1, $2, $3, $4, 'running', $5, $6) ON CONFLICT (id) DO NOTHING RETURNING rid`,
        [
          manifest.runId,
          manifest.name ?? null,
          manifest.git?.branch ?? null,
          manifest.git?.commit ?? null,
          manifest.startedAt,
          JSON.stringify(manifest),
        ],
      );
      const rid = inserted.rows[0]?.rid;
      if (rid === undefined) {
        if (!options.join && !options.resume)
          throw new NiceevalError(
            "RUN_EXISTS",
            `a run with id ${manifest.runId} is already in ${this.location}; every run needs a new id (or join it as another writer).`,
          );
        return this.#join(client, manifest, options);
      }
      const tags = Object.entries(manifest.tags);
      if (tags.length)
        await client.query(
          "INSERT INTO niceeval.run_tags (rid, key, value) SELECT $1, * FROM unnest($2::text[], $3::text[])",
          [rid, tags.map(([k]) => k), tags.map(([, v]) => v)],
        );
      await client.query(
        `INSERT INTO niceeval.run_evals (rid, ev, eval_id)
         SELECT $1, ord - 1, eval_id FROM unnest($2::text[]) WITH ORDINALITY AS e(eval_id, ord)
         ON CONFLICT DO NOTHING`,
        [rid, manifest.evals.map((e) => e.evalId)],
      );
    });
  }

  /** Another writer of an existing run: same files and eval configurations, or refused. */
  async #join(
    client: pg.PoolClient,
    manifest: RunManifest,
    options: BeginRunOptions,
  ): Promise<void> {
    const { rows } = await client.query<{ rid: number; manifest: string; status: RunStatus }>(
      "SELECT rid, manifest, status FROM niceeval.runs WHERE id = $1 FOR NO KEY UPDATE",
      [manifest.runId],
    );
    const row = rows[0]!;
    const stored = JSON.parse(row.manifest) as RunManifest;
    if (options.resume) checkResumable(row.status, stored, options.force === true, this.advice);
    // A resumed run is running again, under its new writer; the caller compared its files.
    if (options.resume) {
      await client.query(
        "UPDATE niceeval.runs SET status = 'running', ended_at = NULL, manifest = $2 WHERE rid = $1",
        [row.rid, JSON.stringify(resumedManifest(stored, manifest))],
      );
      for (const key of options.retire ?? []) await this.#retire(client, row.rid, key);
    } else checkJoin(stored, manifest, this.location);
    await client.query(
      `INSERT INTO niceeval.run_evals (rid, ev, eval_id)
       SELECT $1, (SELECT coalesce(max(ev), -1) FROM niceeval.run_evals WHERE rid = $1) + ord, eval_id
       FROM unnest($2::text[]) WITH ORDINALITY AS e(eval_id, ord)
       WHERE NOT EXISTS (SELECT 1 FROM niceeval.run_evals r WHERE r.rid = $1 AND r.eval_id = e.eval_id)`,
      [row.rid, manifest.evals.map((e) => e.evalId)],
    );
  }

  /** Move a stored attempt to the run's history and out of its eval's totals (see BeginRunOptions.retire). */
  async #retire(
    client: pg.PoolClient,
    rid: number,
    key: { evalId: string; caseId: string; trial: number },
  ): Promise<void> {
    const { rows } = await client.query<Contribution & { id: number; ev: number }>(
      `SELECT a.id, a.ev, a.verdict, a.score_state, a.earned, a.max, ${pgCut("a")} AS cut
       FROM niceeval.attempts a
       JOIN niceeval.run_evals e ON e.rid = a.rid AND e.ev = a.ev
       WHERE a.rid = $1 AND e.eval_id = $2 AND a.case_id = $3 AND a.trial = $4`,
      [rid, key.evalId, key.caseId, key.trial],
    );
    const row = rows[0];
    if (!row) return;
    await client.query(
      `INSERT INTO niceeval.attempt_history (id, rid, ev, replaced_at, ${ATTEMPT_COLUMNS.join(", ")})
       SELECT id, rid, ev, $2, ${ATTEMPT_COLUMNS.join(", ")} FROM niceeval.attempts WHERE id = $1`,
      [row.id, new Date().toISOString()],
    );
    await client.query("DELETE FROM niceeval.attempts WHERE id = $1", [row.id]);
    const left = await client.query(
      "SELECT 1 FROM niceeval.attempts WHERE rid = $1 AND ev = $2 AND case_id = $3 LIMIT 1",
      [rid, row.ev, key.caseId],
    );
    const delta = retiredDelta(row, left.rowCount === 0);
    await client.query(
      `UPDATE niceeval.run_evals SET ${COUNTERS.map((c, i) => `${c} = ${c} + $${i + 3}`).join(", ")}
       WHERE rid = $1 AND ev = $2`,
      [rid, row.ev, ...COUNTERS.map((c) => delta[c])],
    );
  }

  async finishRun(runId: string, given: RunEnd): Promise<void> {
    const end = writableEnd(given);
    await this.#transaction(async (client) => {
      const { rows } = await client.query<{ manifest: string }>(
        "SELECT manifest FROM niceeval.runs WHERE id = $1 FOR UPDATE",
        [runId],
      );
      if (!rows[0]) throw this.#notFound(runId, "write");
      const manifest = endedManifest(JSON.parse(rows[0].manifest) as RunManifest, end);
      await client.query(
        "UPDATE niceeval.runs SET status = $1, ended_at = $2, summaries = $3, manifest = $4 WHERE id = $5",
        [
          end.status,
          end.endedAt ?? null,
          JSON.stringify(end.summaries),
          JSON.stringify(manifest),
          runId,
        ],
      );
    });
  }

  async getRun(runId: string): Promise<StoredRun | undefined> {
    return this.#guard(async () => {
      const { rows } = await this.#pool.query<RunRow>(
        "SELECT rid, id, status, ended_at, manifest, summaries FROM niceeval.runs WHERE id = $1",
        [runId],
      );
      return (await this.#storedRuns(rows))[0];
    });
  }

  async listRuns(query: RunListQuery = {}): Promise<StoredRun[]> {
    checkRunListQuery(query);
    return this.#guard(async () => {
      const p = new Params();
      const where: string[] = [];
      if (query.evalId !== undefined)
        where.push(
          `EXISTS (SELECT 1 FROM niceeval.run_evals e WHERE e.rid = r.rid AND e.eval_id = ${p.add(query.evalId)})`,
        );
      if (query.branch !== undefined) where.push(`r.branch = ${p.add(query.branch)}`);
      if (query.status !== undefined)
        where.push(`r.status = ANY(${p.add(storedStatuses(query.status))}::text[])`);
      for (const [key, value] of Object.entries(query.tags ?? {}))
        where.push(
          `EXISTS (SELECT 1 FROM niceeval.run_tags t WHERE t.rid = r.rid AND t.key = ${p.add(key)} AND t.value = ${p.add(value)})`,
        );
      // A running or crashed run is told by its writer, after reading: the limit is applied then.
      const limit = query.limit === undefined || checkedByWriter(query.status) ? null : query.limit;
      const { rows } = await this.#pool.query<RunRow>(
        `SELECT r.rid, r.id, r.status, r.ended_at, r.manifest, r.summaries FROM niceeval.runs r
         ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
         ORDER BY r.started_at DESC, r.rid DESC LIMIT ${p.add(limit)}`,
        p.values,
      );
      return shownAs(await this.#storedRuns(rows), query.status, query.limit);
    });
  }

  async #storedRuns(rows: readonly RunRow[]): Promise<StoredRun[]> {
    if (rows.length === 0) return [];
    // A database an older niceeval wrote, read as it is, counts the attempts cut off here.
    const sum = (c: (typeof COUNTERS)[number]) =>
      c === "interrupted" && this.#version < 3
        ? `(SELECT count(*)::int FROM niceeval.attempts a WHERE a.rid = e.rid AND ${pgCut("a")})`
        : `sum(${c})${c === "score_sum" ? "" : "::int"}`;
    const sums = await this.#pool.query<Delta & { rid: number; evals: number }>(
      `SELECT rid, count(*) FILTER (WHERE attempts > 0)::int AS evals,
       ${COUNTERS.map((c) => `${sum(c)} AS ${c}`).join(", ")}
       FROM niceeval.run_evals e WHERE rid = ANY($1::int[]) GROUP BY rid`,
      [rows.map((r) => r.rid)],
    );
    const byRid = new Map(sums.rows.map((s) => [s.rid, s]));
    return rows.map((row) => {
      const d = byRid.get(row.rid);
      return storedRun(row, d?.evals ?? 0, d ?? zeroDelta());
    });
  }

  // ── Attempts ──

  async appendAttempts(runId: string, records: readonly AttemptRecord[]): Promise<void> {
    checkAttemptRecords(records);
    if (records.length === 0) return;
    // The same key twice in a batch: the last wins, at the first one's position.
    const byKey = new Map<string, { record: AttemptRecord; firstIndex: number | undefined }>();
    for (const record of records) {
      const key = keyOf(record.evalId, record.caseId, record.trial ?? 0);
      const first = byKey.get(key);
      byKey.set(key, { record, firstIndex: first ? first.firstIndex : record.index });
    }
    // Kinds and blobs are written before the run is locked: they are shared, content-addressed,
    // and harmless if the batch then fails.
    const pending = await this.#guard(() => this.#encode([...byKey.values()]));
    await this.#transaction((client) => this.#append(client, runId, pending), true);
  }

  /** Encode a batch, writing its new judgment kinds and large values first. */
  async #encode(
    batch: readonly { record: AttemptRecord; firstIndex: number | undefined }[],
  ): Promise<Pending[]> {
    await this.#ensureKinds(batch.map((b) => b.record));
    const blobs = new BlobBatch(this.#capBytes);
    let missed = false;
    const context = {
      kindId: (kind: JudgmentKind) => this.#kindIds.get(kindKey(kind))!,
      putValue: (json: string): string | number => {
        if (isInline(json, this.#capBytes)) return json;
        const id = blobs.put(json);
        if (id === undefined) missed = true;
        return id ?? 0;
      },
    };
    const encoded = batch.map(({ record, firstIndex }) => {
      missed = false;
      return { record, firstIndex, row: encodeAttempt(record, 0, context), missed };
    });
    if (blobs.size === 0) return encoded;
    const client = await this.#pool.connect();
    let broken: Error | undefined;
    try {
      await blobs.write(client);
    } catch (error) {
      if (this.#lost(error)) broken = error as Error;
      throw error;
    } finally {
      client.release(broken);
    }
    // Records that met a new large value are encoded again, now that its id is known.
    return encoded.map((e) => (e.missed ? { ...e, row: encodeAttempt(e.record, 0, context) } : e));
  }

  async #ensureKinds(records: readonly AttemptRecord[]): Promise<void> {
    const missing = new Map<string, JudgmentKind>();
    for (const record of records)
      for (const j of record.judgments) {
        const kind = { label: j.label, source: j.source, gate: j.gate, points: j.points };
        const key = kindKey(kind);
        if (!this.#kindIds.has(key)) missing.set(key, kind);
      }
    if (missing.size === 0) return;
    const kinds = [...missing.values()].sort((a, b) =>
      kindKey(a) < kindKey(b) ? -1 : kindKey(a) > kindKey(b) ? 1 : 0,
    );
    const columns = [
      kinds.map((k) => k.label),
      kinds.map((k) => k.source),
      kinds.map((k) => k.gate),
      kinds.map((k) => k.points),
    ];
    await this.#pool.query(
      `INSERT INTO niceeval.judgment_kinds (label, source, gate, points)
       SELECT * FROM unnest($1::text[], $2::text[], $3::boolean[], $4::float8[])
       ON CONFLICT DO NOTHING`,
      columns,
    );
    const { rows } = await this.#pool.query<{ id: number } & JudgmentKind>(
      `SELECT k.id, k.label, k.source, k.gate, k.points FROM niceeval.judgment_kinds k
       JOIN unnest($1::text[], $2::text[], $3::boolean[], $4::float8[]) AS w(label, source, gate, points)
       USING (label, source, gate, points)`,
      columns,
    );
    for (const row of rows) this.#remember(row);
  }

  #remember(row: { id: number } & JudgmentKind): void {
    const kind = { label: row.label, source: row.source, gate: row.gate, points: row.points };
    this.#kindIds.set(kindKey(kind), row.id);
    this.#kinds.set(row.id, kind);
  }

  /**
   * Upsert a batch under the run's row lock: writers of one run take turns per batch, so the
   * old value of a replaced attempt, a new case's position and the totals are read and written
   * without another writer in between; writers of other runs never wait.
   */
  async #append(client: pg.PoolClient, runId: string, batch: readonly Pending[]): Promise<void> {
    // The run's row lock and its evals, in one round trip.
    const { rows: runRows } = await client.query<{
      rid: number;
      ev: number | null;
      eval_id: string | null;
      cases: number | null;
    }>(
      `SELECT r.rid, e.ev, e.eval_id, e.cases FROM niceeval.runs r
       LEFT JOIN niceeval.run_evals e ON e.rid = r.rid WHERE r.id = $1 FOR NO KEY UPDATE OF r`,
      [runId],
    );
    const rid = runRows[0]?.rid;
    if (rid === undefined) throw this.#notFound(runId, "write");
    const evs = new Map<string, number>();
    const cases = new Map<number, number>();
    // The next eval's position, counted here: Math.max(...) over a run of some 120,000 evals
    // overflows the stack.
    let next = 0;
    for (const e of runRows)
      if (e.ev !== null && e.eval_id !== null) {
        evs.set(e.eval_id, e.ev);
        cases.set(e.ev, e.cases ?? 0);
        next = Math.max(next, e.ev + 1);
      }
    for (const { record } of batch) {
      if (evs.has(record.evalId)) continue;
      const ev = next++;
      await client.query("INSERT INTO niceeval.run_evals (rid, ev, eval_id) VALUES ($1, $2, $3)", [
        rid,
        ev,
        record.evalId,
      ]);
      evs.set(record.evalId, ev);
      cases.set(ev, 0);
    }
    // Every stored trial of the batch's cases: the attempts replaced, and known cases' positions.
    const caseKeys = [
      ...new Set(batch.map((b) => JSON.stringify([evs.get(b.record.evalId), b.record.caseId]))),
    ].map((k) => JSON.parse(k) as [number, string]);
    const existing = await client.query<
      Contribution & { ev: number; case_id: string; trial: number; case_index: number }
    >(
      // One probe of the (rid, case_id, ev, trial) index per case, whatever the planner's
      // statistics (they lag behind a run being written): OFFSET 0 keeps the lateral a nested
      // loop, and `ev + 0` keeps it off attempts_order (rid, ev, …), which would walk the run.
      `SELECT a.* FROM unnest($2::int[], $3::text[]) AS k(ev, case_id) CROSS JOIN LATERAL (
         SELECT a.ev, a.case_id, a.trial, a.verdict, a.score_state, a.earned, a.max, a.case_index,
           ${pgCut("a")} AS cut
         FROM niceeval.attempts a
         WHERE a.rid = $1 AND a.case_id = k.case_id AND a.ev + 0 = k.ev OFFSET 0
       ) a`,
      [rid, caseKeys.map(([ev]) => ev), caseKeys.map(([, id]) => id)],
    );
    const old = new Map<string, Contribution & { case_index: number }>();
    const sibling = new Map<string, number>();
    for (const row of existing.rows) {
      old.set(JSON.stringify([row.ev, row.case_id, row.trial]), row);
      sibling.set(JSON.stringify([row.ev, row.case_id]), row.case_index);
    }
    const deltas = new Map<number, Delta>();
    const fresh: Record<string, unknown>[] = [];
    const replaced: Record<string, unknown>[] = [];
    for (const { record, firstIndex, row } of batch) {
      const ev = evs.get(record.evalId)!;
      let delta = deltas.get(ev);
      if (!delta) {
        delta = zeroDelta();
        deltas.set(ev, delta);
      }
      const caseKey = JSON.stringify([ev, record.caseId]);
      const previous = old.get(JSON.stringify([ev, record.caseId, record.trial ?? 0]));
      let index = record.index ?? firstIndex ?? previous?.case_index;
      if (!previous) {
        const known = sibling.get(caseKey);
        if (known === undefined) delta.cases++;
        index ??= known ?? (cases.get(ev) ?? 0) + delta.cases - 1;
        sibling.set(caseKey, index);
      }
      if (previous) countAttempt(delta, previous, -1);
      countAttempt(delta, { ...row, cut: cutOff(record) }, 1);
      const out: Record<string, unknown> = { ev };
      for (const c of ATTEMPT_COLUMNS) out[c] = row[c];
      for (const c of VALUE_COLUMNS) out[c] = toPgCell(row[c]);
      out.case_index = index ?? 0;
      out.search = searchFor(record);
      out.search_blobs = searchBlobs(row);
      (previous ? replaced : fresh).push(out);
    }
    await client.query(APPEND, [
      rid,
      JSON.stringify(fresh),
      JSON.stringify(replaced),
      JSON.stringify([...deltas].map(([ev, d]) => ({ ev, ...d }))),
      new Date().toISOString(),
    ]);
  }

  async #kindsFor(rows: readonly PgAttemptRow[]): Promise<void> {
    const wanted = new Set<number>();
    for (const row of rows)
      for (const id of row.kinds.split(",")) {
        const n = Number(id);
        if (id !== "" && !this.#kinds.has(n)) wanted.add(n);
      }
    if (wanted.size === 0) return;
    const { rows: kinds } = await this.#pool.query<{ id: number } & JudgmentKind>(
      "SELECT id, label, source, gate, points FROM niceeval.judgment_kinds WHERE id = ANY($1::int[])",
      [[...wanted]],
    );
    for (const kind of kinds) this.#remember(kind);
  }

  /** Decode rows, reading the judgment kinds and blobs they name in one query each. */
  async #decodeRows(
    rows: readonly PgAttemptRow[],
    evalIds: Map<number, string>,
    runId: string,
  ): Promise<AttemptRecord[]> {
    await this.#kindsFor(rows);
    const blobIds: number[] = [];
    for (const row of rows) {
      for (const c of VALUE_COLUMNS) {
        const cell = fromPgCell(row[c]);
        if (typeof cell === "number") blobIds.push(cell);
      }
      if (row.judgments.includes('"D":'))
        for (const m of row.judgments.matchAll(/"D":(\d+)/g)) blobIds.push(Number(m[1]));
    }
    const blobs = new Map<number, unknown>();
    await readBlobs(this.#pool, blobIds, blobs);
    const context: DecodeContext = {
      kind: (id) =>
        this.#kinds.get(id) ?? {
          label: `(unknown judgment ${id})`,
          source: "store",
          gate: false,
          points: 0,
        },
      blob: (id) => (blobs.has(id) ? blobs.get(id) : { "~missing": `blob ${id}` }),
    };
    const records: AttemptRecord[] = [];
    for (const row of rows) {
      const cells: Partial<AttemptRow> = {};
      for (const c of VALUE_COLUMNS) cells[c] = fromPgCell(row[c]);
      const decoded = { ...row, ...cells } as AttemptRow;
      const evalId = evalIds.get(row.ev) ?? "";
      try {
        records.push(decodeAttempt(decoded, evalId, context));
      } catch (error) {
        // A row edited by hand: named with its run, case and cell, not a crash.
        const place = { store: this.location, runId, runName: await this.#runName(runId), evalId };
        throw damagedRowError(place, decoded, context, error);
      }
    }
    return records;
  }

  /** A run's name, for an error message; none when it has none or cannot be read. */
  async #runName(runId: string): Promise<string | undefined> {
    try {
      const { rows } = await this.#pool.query<{ name: string | null }>(
        "SELECT name FROM niceeval.runs WHERE id = $1",
        [runId],
      );
      return rows[0]?.name ?? undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * A run's id and evals. When the planner's statistics have not yet seen a run this large (a
   * run just written, before autovacuum analyses it), the attempts table is analysed first:
   * with stale statistics, pages in case order are planned as a sort of the whole run.
   */
  async #runContext(runId: string): Promise<{ rid: number; evalIds: Map<number, string> }> {
    const { rows } = await this.#pool.query<{
      rid: number;
      ev: number | null;
      eval_id: string | null;
      attempts: number | null;
      reltuples: number;
    }>(
      `SELECT r.rid, e.ev, e.eval_id, e.attempts,
       (SELECT reltuples FROM pg_class WHERE oid = 'niceeval.attempts'::regclass) AS reltuples
       FROM niceeval.runs r LEFT JOIN niceeval.run_evals e ON e.rid = r.rid WHERE r.id = $1`,
      [runId],
    );
    if (!rows[0]) throw this.#notFound(runId, "read");
    const evalIds = new Map<number, string>();
    let attempts = 0;
    for (const row of rows)
      if (row.ev !== null && row.eval_id !== null) {
        evalIds.set(row.ev, row.eval_id);
        attempts += row.attempts ?? 0;
      }
    if (attempts >= ANALYZE_FROM && rows[0].reltuples < attempts)
      // Skipped with a warning, not an error, for a user who does not own the table.
      await this.#pool.query("ANALYZE niceeval.attempts");
    return { rid: rows[0].rid, evalIds };
  }

  async *streamAttempts(
    runId: string,
    options: { evalId?: string } = {},
  ): AsyncIterable<AttemptRecord> {
    const { rid, evalIds } = await this.#guard(() => this.#runContext(runId));
    let ev: number | undefined;
    if (options.evalId !== undefined) {
      ev = [...evalIds].find(([, id]) => id === options.evalId)?.[0];
      if (ev === undefined) return;
    }
    // Keyset pages in case order: each query is short, so no connection is held while the caller iterates.
    const page = (after: PgAttemptRow | undefined) =>
      this.#guard(async () => {
        const p = new Params();
        const where = [`a.rid = ${p.add(rid)}`];
        if (ev !== undefined) where.push(`a.ev = ${p.add(ev)}`);
        if (after)
          where.push(
            `(a.ev, a.case_index, a.trial, a.id) > (${p.add(after.ev)}, ${p.add(after.case_index)}, ${p.add(after.trial)}, ${p.add(after.id)})`,
          );
        const { rows } = await this.#pool.query<PgAttemptRow>(
          `${SELECT_ATTEMPT} WHERE ${where.join(" AND ")}
           ORDER BY a.ev, a.case_index, a.trial, a.id LIMIT ${p.add(this.#streamBatch)}`,
          p.values,
        );
        return { rows, records: await this.#decodeRows(rows, evalIds, runId) };
      });
    let next = page(undefined);
    for (;;) {
      const { rows, records } = await next;
      const last = rows.at(-1);
      const more = rows.length === this.#streamBatch && last !== undefined;
      // The next page is read while the caller consumes this one.
      if (more) next = page(last);
      yield* records;
      if (!more) break;
    }
  }

  async *attemptKeys(runId: string): AsyncIterable<AttemptKey> {
    const { rid, evalIds } = await this.#guard(() => this.#runContext(runId));
    const verdicts = new Map<number, Verdict>(
      Object.entries(VERDICT_CODE).map(([v, code]) => [code, v as Verdict]),
    );
    // Keys only: small rows, one query.
    const { rows } = await this.#guard(() =>
      this.#pool.query<{
        ev: number;
        case_id: string;
        trial: number;
        verdict: number;
        cut: boolean;
      }>(
        `SELECT ev, case_id, trial, verdict,
           ${pgCut("attempts")} AS cut
         FROM niceeval.attempts WHERE rid = $1`,
        [rid],
      ),
    );
    for (const row of rows)
      yield {
        ...(row.cut ? { interrupted: true as const } : {}),
        evalId: evalIds.get(row.ev) ?? "",
        caseId: row.case_id,
        trial: row.trial,
        verdict: verdicts.get(row.verdict) ?? "errored",
      };
  }

  async *attemptHistory(runId: string): AsyncIterable<ReplacedAttempt> {
    const { rid, evalIds } = await this.#guard(() => this.#runContext(runId));
    // Replaced attempts are kept from schema version 2 on: an older store, read as it is, has none.
    if (this.#version < 2) return;
    const { rows } = await this.#guard(() =>
      this.#pool.query<PgAttemptRow & { replaced_at: string }>(
        `SELECT id, ev, replaced_at, ${ATTEMPT_COLUMNS.join(", ")} FROM niceeval.attempt_history
         WHERE rid = $1 ORDER BY ev, case_index, trial, hid`,
        [rid],
      ),
    );
    const records = await this.#guard(() => this.#decodeRows(rows, evalIds, runId));
    for (const [i, record] of records.entries()) yield { replacedAt: rows[i]!.replaced_at, record };
  }

  async queryAttempts(runId: string, query: AttemptQuery = {}): Promise<AttemptPage> {
    checkAttemptQuery(query);
    return this.#guard(async () => {
      const { rid, evalIds } = await this.#runContext(runId);
      const p = new Params();
      const where = await attemptFilter(
        rid,
        query,
        {
          ev: (evalId) => [...evalIds].find(([, id]) => id === evalId)?.[0],
          kindIds: async (label) =>
            (
              await this.#pool.query<{ id: number }>(
                "SELECT id FROM niceeval.judgment_kinds WHERE label = $1",
                [label],
              )
            ).rows.map((r) => r.id),
        },
        p,
      );
      if (where === undefined) return { total: 0, items: [] };
      const limit = Math.min(MAX_PAGE, query.limit ?? 100);
      const offset = Math.max(0, Math.floor(query.offset ?? 0));
      const count = async () =>
        (
          await this.#pool.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM niceeval.attempts a WHERE ${where}`,
            p.values,
          )
        ).rows[0]!.n;
      if (limit === 0) return { total: await count(), items: [] };
      const pageParams = new Params();
      pageParams.values.push(...p.values);
      const scansText = query.text !== undefined && query.text !== "";
      // A text scan is the cost: one pass yields the page and the total. Otherwise the count
      // and a page in index order are each cheaper than a window over every match.
      const [{ rows: ids }, counted] = await Promise.all([
        this.#pool.query<{ id: number; total?: number }>(
          `SELECT a.id${scansText ? ", count(*) OVER ()::int AS total" : ""} FROM niceeval.attempts a
           WHERE ${where} ORDER BY ${attemptOrder(query)}
           LIMIT ${pageParams.add(limit)} OFFSET ${pageParams.add(offset)}`,
          pageParams.values,
        ),
        scansText ? undefined : count(),
      ]);
      const total = counted ?? ids[0]?.total ?? (await count());
      if (ids.length === 0) return { total, items: [] };
      const { rows } = await this.#pool.query<PgAttemptRow>(
        `${SELECT_ATTEMPT} WHERE a.id = ANY($1::bigint[])`,
        [ids.map((r) => r.id)],
      );
      const byId = new Map(rows.map((r) => [r.id, r]));
      const ordered = ids.map((r) => byId.get(r.id)).filter((r) => r !== undefined);
      return { total, items: await this.#decodeRows(ordered, evalIds, runId) };
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end();
  }
}

const kindKey = (kind: JudgmentKind) =>
  JSON.stringify([kind.label, kind.source, kind.gate, kind.points]);

/** What text queries scan: the SQLite backend's search text, plus the judgments' reasons. */
function searchFor(record: AttemptRecord): string {
  const reasons = record.judgments.map((j) => j.reason.toLowerCase()).join("\n");
  // PostgreSQL text cannot hold NUL.
  return `${searchText(record)}\n${reasons}`.replaceAll("\0", " ");
}

/**
 * Listen for the errors pg emits on a pool's clients when the server ends their connection (a
 * shutdown, `pg_terminate_backend`, a network cut), which Node throws as uncaught when nobody
 * listens. An idle client's error is the pool's, which drops that client. A checked-out client's
 * fails the query under way on it (or the next one sent), which the store reports as its own
 * failure; given back broken, it is dropped, and the next query connects again.
 */
function listenForDrops(pool: pg.Pool): void {
  pool.on("error", () => {});
  pool.on("connect", (client) => {
    client.on("error", () => {});
  });
}
