import type Database from "better-sqlite3";

/** `PRAGMA application_id` of a niceeval store ("nEvl"), so another app's SQLite file is told apart. */
export const APPLICATION_ID = 0x6e45766c;

/** One forward step of the schema; each runs in its own transaction and is never edited once released. */
interface Migration {
  version: number;
  up(db: Database.Database): void;
}

// Codes stored in integer columns (kept stable: they are on disk). Verdicts are numbered by
// precedence, so a verdict sort in descending order lists errored, failed, skipped, passed.
export const VERDICT_CODE = { passed: 0, skipped: 1, failed: 2, errored: 3 } as const;
export const SCORE_STATE_CODE = { complete: 0, partial: 1, unavailable: 2 } as const;
export const JUDGMENT_STATE_CODE = {
  matched: 0,
  mismatched: 1,
  unavailable: 2,
  errored: 3,
} as const;

const migrations: readonly Migration[] = [
  {
    version: 1,
    up(db) {
      db.exec(`
        CREATE TABLE runs (
          rid INTEGER PRIMARY KEY,
          id TEXT NOT NULL UNIQUE,
          name TEXT,
          branch TEXT,
          commit_sha TEXT,
          status TEXT NOT NULL,
          started_at TEXT NOT NULL,
          ended_at TEXT,
          manifest TEXT NOT NULL,
          summaries TEXT
        );
        CREATE INDEX runs_started ON runs (started_at DESC, rid DESC);
        CREATE INDEX runs_name ON runs (name) WHERE name IS NOT NULL;

        CREATE TABLE run_tags (
          rid INTEGER NOT NULL REFERENCES runs (rid),
          key TEXT NOT NULL,
          value TEXT NOT NULL,
          PRIMARY KEY (rid, key)
        ) WITHOUT ROWID;
        CREATE INDEX run_tags_kv ON run_tags (key, value);

        -- One row per eval of a run (manifest order), with totals kept up to date on append.
        CREATE TABLE run_evals (
          rid INTEGER NOT NULL REFERENCES runs (rid),
          ev INTEGER NOT NULL,
          eval_id TEXT NOT NULL,
          cases INTEGER NOT NULL DEFAULT 0,
          attempts INTEGER NOT NULL DEFAULT 0,
          passed INTEGER NOT NULL DEFAULT 0,
          failed INTEGER NOT NULL DEFAULT 0,
          errored INTEGER NOT NULL DEFAULT 0,
          skipped INTEGER NOT NULL DEFAULT 0,
          scored INTEGER NOT NULL DEFAULT 0,
          score_sum REAL NOT NULL DEFAULT 0,
          PRIMARY KEY (rid, ev),
          UNIQUE (rid, eval_id)
        ) WITHOUT ROWID;
        CREATE INDEX run_evals_eval ON run_evals (eval_id);

        -- Label, source, gate and points of a judgment, shared by every attempt that has it.
        CREATE TABLE judgment_kinds (
          id INTEGER PRIMARY KEY,
          label TEXT NOT NULL,
          source TEXT NOT NULL,
          gate INTEGER NOT NULL,
          points REAL NOT NULL,
          UNIQUE (label, source, gate, points)
        );

        -- Values above the inline threshold, stored once by the sha-256 of their JSON.
        CREATE TABLE blobs (
          id INTEGER PRIMARY KEY,
          hash BLOB NOT NULL UNIQUE,
          bytes INTEGER NOT NULL,
          truncated INTEGER NOT NULL DEFAULT 0,
          json TEXT NOT NULL
        );

        -- Value columns (input … trace) have no type (no affinity): inline JSON text, or an integer blobs.id.
        CREATE TABLE attempts (
          id INTEGER PRIMARY KEY,
          rid INTEGER NOT NULL,
          ev INTEGER NOT NULL,
          case_index INTEGER NOT NULL,
          trial INTEGER NOT NULL,
          case_id TEXT NOT NULL,
          verdict INTEGER NOT NULL,
          score_state INTEGER NOT NULL,
          earned REAL NOT NULL,
          max REAL NOT NULL,
          elapsed_ms REAL NOT NULL,
          judgment_states INTEGER NOT NULL,
          kinds TEXT NOT NULL,
          error TEXT,
          judgments TEXT NOT NULL,
          reasons TEXT,
          rest TEXT,
          input,
          expected,
          metadata,
          output,
          trace
        );
        CREATE UNIQUE INDEX attempts_key ON attempts (rid, ev, case_id, trial);
        -- Case order, covering the filters and sort keys so counts and page ids skip the rows.
        CREATE INDEX attempts_order ON attempts (
          rid, ev, case_index, trial, verdict, judgment_states, score_state, earned, max,
          elapsed_ms, kinds
        );

        -- What text queries scan, kept apart from the wide rows and clustered by run:
        -- lower-cased case id, input and output text, judgment reasons; and the blob ids of an
        -- input or output too large to be inline, searched in their JSON.
        CREATE TABLE attempt_text (
          rid INTEGER NOT NULL,
          id INTEGER NOT NULL,
          search TEXT NOT NULL,
          blobs TEXT,
          PRIMARY KEY (rid, id)
        ) WITHOUT ROWID;
      `);
    },
  },
  {
    // Reasons get a per-run dictionary: a suite repeats a handful of them 100,000 times, so text
    // queries search the handful, and attempt_text keeps their ids (",3,7,") instead of their
    // text. Rows written by version 1 still carry reasons in attempt_text.search, which text
    // queries also read, so they need no rewrite.
    version: 2,
    up(db) {
      db.exec(`
        CREATE TABLE run_reasons (
          rid INTEGER NOT NULL,
          id INTEGER NOT NULL,
          hash INTEGER NOT NULL,
          text TEXT NOT NULL,
          PRIMARY KEY (rid, id)
        ) WITHOUT ROWID;
        CREATE INDEX run_reasons_hash ON run_reasons (rid, hash);
        ALTER TABLE attempt_text ADD COLUMN reasons TEXT;
      `);
    },
  },
  {
    // Attempts replaced by a later one of the same key (`--retry-errors`) are kept as history:
    // the old row, as it was, with when it was replaced.
    version: 3,
    up(db) {
      db.exec(`
        CREATE TABLE attempt_history (
          hid INTEGER PRIMARY KEY,
          id INTEGER NOT NULL,
          rid INTEGER NOT NULL,
          ev INTEGER NOT NULL,
          replaced_at TEXT NOT NULL,
          case_index INTEGER NOT NULL,
          trial INTEGER NOT NULL,
          case_id TEXT NOT NULL,
          verdict INTEGER NOT NULL,
          score_state INTEGER NOT NULL,
          earned REAL NOT NULL,
          max REAL NOT NULL,
          elapsed_ms REAL NOT NULL,
          judgment_states INTEGER NOT NULL,
          kinds TEXT NOT NULL,
          error TEXT,
          judgments TEXT NOT NULL,
          reasons TEXT,
          rest TEXT,
          input,
          expected,
          metadata,
          output,
          trace
        );
        CREATE INDEX attempt_history_order ON attempt_history (rid, ev, case_index, trial, hid);
      `);
    },
  },
  {
    // An attempt's judgments and reasons cells, when a writer has seen the same text before, hold
    // the id of one shared copy (shared-cells.ts). Rows written before keep their text, which
    // still reads; a niceeval that predates this step would misread the ids, so it must refuse.
    version: 4,
    up(db) {
      db.exec(`
        CREATE TABLE shared_cells (
          id INTEGER PRIMARY KEY,
          hash BLOB NOT NULL UNIQUE,
          text TEXT NOT NULL
        );
      `);
    },
  },
  {
    // Each eval's totals count the attempts the run's stop cut off (errored, error.interrupted),
    // which are in no pass rate, so a run without summaries (running, crashed) rates as the
    // others do. Counted from the attempts already stored; an error cell that is not JSON
    // (edited by hand) is not one.
    version: 5,
    up(db) {
      db.exec(`
        ALTER TABLE run_evals ADD COLUMN interrupted INTEGER NOT NULL DEFAULT 0;
        UPDATE run_evals SET interrupted = (
          SELECT count(*) FROM attempts a
          WHERE a.rid = run_evals.rid AND a.ev = run_evals.ev
            AND a.verdict = ${VERDICT_CODE.errored}
            AND CASE WHEN json_valid(a.error) THEN json_extract(a.error, '$.interrupted') IS 1 ELSE 0 END
        )
        WHERE errored > 0;
      `);
    },
  },
];

/** The schema version this code writes. A store with a higher one was written by a newer niceeval. */
export const SCHEMA_VERSION = migrations.at(-1)!.version;

/** Version recorded in the store, or 0 for a store not yet initialised. */
export function readSchemaVersion(db: Database.Database): number {
  const table = db
    .prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'schema_version'")
    .get();
  if (!table) return 0;
  const row = db.prepare("SELECT max(version) AS version FROM schema_version").get() as
    | { version: number | null }
    | undefined;
  return row?.version ?? 0;
}

/**
 * Apply every step above the stored version up to `target`, each in an IMMEDIATE transaction
 * (safe if two processes race).
 */
export function migrate(db: Database.Database, target = SCHEMA_VERSION): void {
  for (const migration of migrations) {
    if (migration.version > target) break;
    db.transaction(() => {
      if (readSchemaVersion(db) >= migration.version) return;
      if (migration.version === 1) {
        db.exec(`PRAGMA application_id = ${APPLICATION_ID}`);
        db.exec(
          "CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)",
        );
      }
      migration.up(db);
      db.prepare("INSERT INTO schema_version (version, applied_at) VALUES (?, ?)").run(
        migration.version,
        new Date().toISOString(),
      );
    }).immediate();
  }
}
