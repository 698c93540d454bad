import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgresStore, openSqliteStore } from "../../src/store/index.js";
import type { Store } from "../../src/store/types.js";
import { startPostgres, type TestPostgres } from "../support/postgres.js";
import { attempt, manifest } from "./fixtures.js";

// An error cell edited by hand into something that is not JSON is not counted as cut off by a
// stop, in either backend, even when it still holds `"interrupted":true` (README: "An error
// edited by hand into something that is not JSON is not counted").

/** Cells that name the key with true but are not JSON, and the one that is. */
const EDITED = [
  // A quote typed into the message, unescaped.
  '{"message":"said "stop"","where":"target","interrupted":true}',
  // Cut after the key.
  '{"message":"interrupted by SIGINT","interrupted":true,"where":"tar',
  // Something after the object.
  '{"message":"interrupted by SIGINT","where":"target","interrupted":true} and more',
];
const VALID = '{"message":"interrupted by SIGINT","where":"target","interrupted":true}';

let server: TestPostgres;
let dir: string;
beforeAll(async () => {
  server = await startPostgres();
  dir = await mkdtemp(join(tmpdir(), "niceeval-cut-cell-"));
}, 120_000);
afterAll(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A run of four errored attempts, cut off by a stop, written to `store`. */
async function writeRun(store: Store): Promise<void> {
  await store.beginRun(manifest("edited", { evals: ["alpha"] }));
  const cutOff = (index: number) => {
    const record = attempt("alpha", index, { verdict: "errored" });
    record.error = { message: "interrupted by SIGINT", where: "target", interrupted: true };
    return record;
  };
  await store.appendAttempts("edited", [0, 1, 2, 3].map(cutOff));
  await store.close();
}

/** Each attempt key as `case:interrupted`. */
async function keys(store: Store): Promise<string[]> {
  const listed = [];
  for await (const key of store.attemptKeys("edited"))
    listed.push(`${key.caseId}:${key.interrupted ?? false}`);
  await store.close();
  return listed;
}

const expected = ["case-0:false", "case-1:false", "case-2:false", "case-3:true"];

describe("an error cell edited by hand into something that is not JSON", {
  timeout: 60_000,
}, () => {
  it("is not cut off in SQLite", async () => {
    const path = join(dir, "edited.sqlite");
    await writeRun(await openSqliteStore(path));
    const db = new Database(path);
    [...EDITED, VALID].forEach((cell, i) => {
      db.prepare("UPDATE attempts SET error = ? WHERE case_id = ?").run(cell, `case-${i}`);
    });
    db.close();
    expect(await keys(await openSqliteStore(path))).toEqual(expected);
  });

  it("is not cut off in PostgreSQL either, in the keys and in the counts of an older schema", async () => {
    const url = await server.createDatabase("edited_cells");
    await writeRun(await openPostgresStore(url));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      for (const [i, cell] of [...EDITED, VALID].entries())
        await client.query("UPDATE niceeval.attempts SET error = $1 WHERE case_id = $2", [
          cell,
          `case-${i}`,
        ]);
      // Schema 2: the counts come from the cells.
      await client.query("ALTER TABLE niceeval.run_evals DROP COLUMN interrupted");
      await client.query("DELETE FROM niceeval.schema_version WHERE version > 2");
    } finally {
      await client.end();
    }
    const reader = await openPostgresStore(url, { readOnly: true });
    expect((await reader.listRuns())[0]?.totals).toMatchObject({ errored: 4, interrupted: 1 });
    await reader.close();
    const store = await openPostgresStore(url);
    expect((await store.getRun("edited"))?.totals).toMatchObject({ interrupted: 1 });
    expect(await keys(store)).toEqual(expected);
  });
});
