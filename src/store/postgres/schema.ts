import type pg from "pg";
import { NiceevalError } from "../../errors.js";
import { type StoreAdvice, sentence } from "../advice.js";
import { VERDICT_CODE } from "../sqlite/schema.js";

/** The PostgreSQL schema (namespace) every niceeval table lives in, apart from the app's own. */
export const PG_SCHEMA = "niceeval";

/** Key of the session advisory lock taken while migrating, so two processes never migrate at once. */
const MIGRATION_LOCK = "niceeval:migrate";

/** What a step of the schema does beyond reading and writing rows, and so who may apply it. */
export interface MigrationNeeds {
  version: number;
  /** What the step is for, as a message names it. */
  about: string;
  /** It creates tables in the schema: needs CREATE on it. */
  creates: boolean;
  /** Tables it alters, which only their owner (or a role that has the owner's rights) may do. */
  alters: readonly string[];
}

/** One forward step of the schema; each runs in its own transaction and is never edited once released. */
interface Migration extends MigrationNeeds {
  sql: string;
}

const CUT_KEY = '[{,][[:space:]]*"interrupted"[[:space:]]*:[[:space:]]*true[[:space:]]*[,}]';

// A JSON object whose values are strings, numbers, true, false or null (what niceeval writes as
// an attempt's error), as a regular expression without a backslash, which the server's
// standard_conforming_strings would read otherwise: `[.backslash.]` names the character.
const WS = "[[:space:]]*";
const STRING =
  '"([^"[.backslash.][:cntrl:]]|[[.backslash.]](["[.backslash.]/bfnrt]|u[0-9a-fA-F]{4}))*"';
const VALUE = `(${STRING}|true|false|null|-?(0|[1-9][0-9]*)([.][0-9]+)?([eE][-+]?[0-9]+)?)`;
const MEMBER = `${WS}${STRING}${WS}:${WS}${VALUE}${WS}`;
const FLAT_OBJECT = `^${WS}[{](${MEMBER}(,${MEMBER})*|${WS})[}]${WS}$`;

/**
 * Whether an attempt row (`a`, its table or alias) is one the run's stop cut off (errored,
 * `error.interrupted`): its share of `run_evals.interrupted`. The error cell's text is matched,
 * never cast, so one edited by hand into something that is not JSON is not counted and fails no
 * query (a cast would; `IS JSON` needs PostgreSQL 16), as SQLite's `json_valid` has it: the cell
 * must be a JSON object of plain values (an unescaped quote typed into the message, a cell cut
 * after the key or text after the object is none). In such an object a quote right after `{`,
 * `,` or blank space is never inside a string, so this matches a key "interrupted" whose value is
 * true, and nothing else.
 */
export const pgCut = (a: string) =>
  `(${a}.verdict = ${VERDICT_CODE.errored} AND coalesce(${a}.error ~ '${CUT_KEY}' AND ${a}.error ~ '${FLAT_OBJECT}', false))`;

// Codes in smallint columns are the SQLite backend's (VERDICT_CODE …), so both encode alike.
const migrations: readonly Migration[] = [
  {
    version: 1,
    about: "niceeval's tables",
    creates: true,
    alters: [],
    sql: `
      CREATE TABLE niceeval.runs (
        rid integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id text NOT NULL UNIQUE,
        name text,
        branch text,
        commit_sha text,
        status text NOT NULL,
        started_at text NOT NULL,
        ended_at text,
        manifest text NOT NULL,
        summaries text
      );
      CREATE INDEX runs_started ON niceeval.runs (started_at DESC, rid DESC);
      CREATE INDEX runs_name ON niceeval.runs (name) WHERE name IS NOT NULL;

      CREATE TABLE niceeval.run_tags (
        rid integer NOT NULL REFERENCES niceeval.runs (rid),
        key text NOT NULL,
        value text NOT NULL,
        PRIMARY KEY (rid, key)
      );
      CREATE INDEX run_tags_kv ON niceeval.run_tags (key, value);

      -- One row per eval of a run (manifest order); totals kept up to date by every append,
      -- which holds the run's row lock, so concurrent writers add up exactly.
      CREATE TABLE niceeval.run_evals (
        rid integer NOT NULL REFERENCES niceeval.runs (rid),
        ev integer NOT NULL,
        eval_id text NOT NULL,
        cases integer NOT NULL DEFAULT 0,
        attempts integer NOT NULL DEFAULT 0,
        passed integer NOT NULL DEFAULT 0,
        failed integer NOT NULL DEFAULT 0,
        errored integer NOT NULL DEFAULT 0,
        skipped integer NOT NULL DEFAULT 0,
        scored integer NOT NULL DEFAULT 0,
        score_sum double precision NOT NULL DEFAULT 0,
        PRIMARY KEY (rid, ev),
        UNIQUE (rid, eval_id)
      );
      CREATE INDEX run_evals_eval ON niceeval.run_evals (eval_id);

      CREATE TABLE niceeval.judgment_kinds (
        id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        label text NOT NULL,
        source text NOT NULL,
        gate boolean NOT NULL,
        points double precision NOT NULL,
        UNIQUE (label, source, gate, points)
      );
      CREATE INDEX judgment_kinds_label ON niceeval.judgment_kinds (label);

      -- Values above the inline threshold, stored once by the sha-256 of their JSON.
      CREATE TABLE niceeval.blobs (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        hash bytea NOT NULL UNIQUE,
        bytes bigint NOT NULL,
        truncated boolean NOT NULL DEFAULT false,
        json text NOT NULL
      );

      -- Value columns (input … trace): inline JSON text, or '@' and a blobs.id.
      -- search: lower-cased case id, input and output text and reasons; search_blobs: the
      -- blob ids of an input or output too large to be inline, searched in their JSON.
      CREATE TABLE niceeval.attempts (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        rid integer NOT NULL,
        ev integer NOT NULL,
        case_index integer NOT NULL,
        trial integer NOT NULL,
        case_id text NOT NULL,
        verdict smallint NOT NULL,
        score_state smallint NOT NULL,
        earned double precision NOT NULL,
        max double precision NOT NULL,
        elapsed_ms double precision NOT NULL,
        judgment_states integer NOT NULL,
        kinds text NOT NULL,
        error text,
        judgments text NOT NULL,
        reasons text,
        rest text,
        input text,
        expected text,
        metadata text,
        output text,
        trace text,
        search text NOT NULL,
        search_blobs text,
        -- Case id before eval, so looking a batch's cases up never walks attempts_order.
        UNIQUE (rid, case_id, ev, trial)
      );
      CREATE INDEX attempts_order ON niceeval.attempts (rid, ev, case_index, trial, id);
    `,
  },
  {
    // Attempts replaced by a later one of the same key (--retry-errors) are kept as history.
    version: 2,
    about: "the history of replaced attempts",
    creates: true,
    alters: [],
    sql: `
      CREATE TABLE niceeval.attempt_history (LIKE niceeval.attempts);
      ALTER TABLE niceeval.attempt_history DROP COLUMN search, DROP COLUMN search_blobs,
        ADD COLUMN replaced_at text NOT NULL,
        ADD COLUMN hid bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY;
      CREATE INDEX attempt_history_order ON niceeval.attempt_history (rid, ev, case_index, trial, hid);
    `,
  },
  {
    // Each eval's totals count the attempts the run's stop cut off, which are in no pass rate,
    // so a run without summaries (running, crashed) rates as the others do; counted from the
    // attempts already stored.
    version: 3,
    about: "counting the attempts a stop cut off",
    creates: false,
    alters: ["run_evals"],
    sql: `
      ALTER TABLE niceeval.run_evals ADD COLUMN interrupted integer NOT NULL DEFAULT 0;
      UPDATE niceeval.run_evals e SET interrupted = c.n
      FROM (
        SELECT a.rid, a.ev, count(*)::int AS n FROM niceeval.attempts a
        WHERE ${pgCut("a")} GROUP BY a.rid, a.ev
      ) c
      WHERE e.rid = c.rid AND e.ev = c.ev;
    `,
  },
];

/** The schema version this code writes. A database with a higher one was written by a newer niceeval. */
export const PG_SCHEMA_VERSION = migrations.at(-1)!.version;

/** The steps that bring a database of schema `version` up to date, and what each needs. */
export function stepsAfter(version: number): MigrationNeeds[] {
  return migrations
    .filter((m) => m.version > version)
    .map(({ version, about, creates, alters }) => ({ version, about, creates, alters }));
}

/** Version recorded in the database, or 0 when niceeval never wrote to it. */
export async function readPgSchemaVersion(client: pg.ClientBase): Promise<number> {
  const { rows } = await client.query<{ exists: boolean }>(
    "SELECT to_regclass('niceeval.schema_version') IS NOT NULL AS exists",
  );
  if (!rows[0]?.exists) return 0;
  const version = await client.query<{ version: number | null }>(
    "SELECT max(version) AS version FROM niceeval.schema_version",
  );
  return version.rows[0]?.version ?? 0;
}

/** A `niceeval` schema with tables but no version table: another tool's, never written to. */
export function notNiceeval(location: string, advice: StoreAdvice): NiceevalError {
  return new NiceevalError(
    "STORE_NOT_NICEEVAL",
    `${location} has a schema "${PG_SCHEMA}" that niceeval did not create (no schema_version table); niceeval does not write to it. ${sentence(advice.otherDatabase)}.`,
  );
}

export function tooNew(location: string, version: number, advice: StoreAdvice): NiceevalError {
  return new NiceevalError(
    "STORE_TOO_NEW",
    `${location} was written by a newer niceeval (schema version ${version}, this niceeval reads up to ${PG_SCHEMA_VERSION}); this version does not migrate it back. Upgrade niceeval, or ${advice.otherDatabase}.`,
  );
}

/**
 * Bring the `niceeval` schema up to date: refuse a newer one before writing anything, then,
 * under a session advisory lock (two processes opening a new database at once take turns),
 * apply each step above the stored version in its own transaction. Resolves to whether the
 * stored version was behind. When a step fails, that failure is the one thrown: the rollback and
 * unlock after it fail too on a connection the server ended, and its lock went with it.
 */
export async function migratePg(
  client: pg.ClientBase,
  location: string,
  advice: StoreAdvice,
): Promise<boolean> {
  const before = await readPgSchemaVersion(client);
  if (before > PG_SCHEMA_VERSION) throw tooNew(location, before, advice);
  if (before === PG_SCHEMA_VERSION) return false;
  const unlock = () => client.query("SELECT pg_advisory_unlock(hashtext($1))", [MIGRATION_LOCK]);
  await client.query("SELECT pg_advisory_lock(hashtext($1))", [MIGRATION_LOCK]);
  try {
    await migrateLocked(client, location, advice);
  } catch (error) {
    await unlock().catch(() => {});
    throw error;
  }
  await unlock();
  return true;
}

/** The steps of {@link migratePg}, under its lock. */
async function migrateLocked(
  client: pg.ClientBase,
  location: string,
  advice: StoreAdvice,
): Promise<void> {
  const { rows } = await client.query<{ tables: number; versioned: boolean }>(
    `SELECT count(*)::int AS tables, bool_or(c.relname = 'schema_version') AS versioned
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relkind = 'r'`,
    [PG_SCHEMA],
  );
  if ((rows[0]?.tables ?? 0) > 0 && !rows[0]?.versioned) throw notNiceeval(location, advice);
  for (const migration of migrations) {
    await client.query("BEGIN");
    try {
      await createVersionTable(client);
      const version = await readPgSchemaVersion(client);
      if (version > PG_SCHEMA_VERSION) throw tooNew(location, version, advice);
      if (version < migration.version) {
        await client.query(migration.sql);
        await client.query(
          "INSERT INTO niceeval.schema_version (version, applied_at) VALUES ($1, $2)",
          [migration.version, new Date().toISOString()],
        );
      }
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    }
  }
}

/**
 * Create the schema and its version table where they are missing, and only then: creating
 * either, even `IF NOT EXISTS`, needs CREATE on the database (or the schema) although it is
 * there, which a user who upgrades a store it may alter need not have.
 */
async function createVersionTable(client: pg.ClientBase): Promise<void> {
  const { rows } = await client.query<{ schema: boolean; table: boolean }>(
    `SELECT to_regnamespace($1) IS NOT NULL AS schema,
       to_regclass('niceeval.schema_version') IS NOT NULL AS table`,
    [PG_SCHEMA],
  );
  if (!rows[0]?.schema) await client.query(`CREATE SCHEMA IF NOT EXISTS ${PG_SCHEMA}`);
  if (!rows[0]?.table)
    await client.query(
      "CREATE TABLE IF NOT EXISTS niceeval.schema_version (version integer PRIMARY KEY, applied_at text NOT NULL)",
    );
}
