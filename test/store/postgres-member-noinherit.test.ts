import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgresStore } from "../../src/store/index.js";
import { startPostgres, type TestPostgres } from "../support/postgres.js";
import { manifest } from "./fixtures.js";

// A member of the schema owner's role upgrades the schema as that owner (SET ROLE), which needs
// the membership's SET option, not its INHERIT one: a role made NOINHERIT (or granted the owner
// WITH INHERIT FALSE) holds none of the owner's rights as itself, yet may switch to it.

let server: TestPostgres;
beforeAll(async () => {
  server = await startPostgres();
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

/** Run each statement on `url` as the test's superuser; resolves to the last one's rows. */
async function sql(url: string, ...statements: string[]): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    let rows: Record<string, unknown>[] = [];
    for (const statement of statements) rows = (await client.query(statement)).rows;
    return rows;
  } finally {
    await client.end();
  }
}

describe("a NOINHERIT member of the schema owner's role", { timeout: 60_000 }, () => {
  it("upgrades the schema as the owner, as any member does, instead of being told to become one", async () => {
    const admin = await server.createDatabase("noinherit_member");
    await sql(
      admin,
      "CREATE ROLE app4 LOGIN PASSWORD 'app4-pw-5120'",
      "CREATE ROLE hank LOGIN NOINHERIT PASSWORD 'hank-pw-5120'",
      "GRANT CREATE ON DATABASE noinherit_member TO app4",
    );
    const as = (user: string) =>
      `postgres://${user}:${user}-pw-5120@127.0.0.1:${server.port}/noinherit_member`;
    const owner = await openPostgresStore(as("app4"));
    await owner.beginRun(manifest("first"));
    await owner.close();
    // Back to schema 1 (a superuser may drop), hank a member of app4 and granted what a writer needs.
    await sql(
      admin,
      "ALTER TABLE niceeval.run_evals DROP COLUMN interrupted",
      "DROP TABLE niceeval.attempt_history",
      "DELETE FROM niceeval.schema_version WHERE version > 1",
      "GRANT app4 TO hank",
      "GRANT USAGE ON SCHEMA niceeval TO hank",
      "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA niceeval TO hank",
      "ALTER DEFAULT PRIVILEGES FOR ROLE app4 IN SCHEMA niceeval GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO hank",
    );

    const store = await openPostgresStore(as("hank"));
    await store.beginRun(manifest("by-hank"));
    await store.close();
    expect(await sql(admin, "SELECT max(version) AS v FROM niceeval.schema_version")).toEqual([
      { v: 3 },
    ]);
    // Every table, attempt_history (step 2's) too, is the owner's.
    expect(
      await sql(
        admin,
        "SELECT c.relname AS table, pg_get_userbyid(c.relowner) AS owner FROM pg_class c WHERE c.relnamespace = 'niceeval'::regnamespace AND c.relkind = 'r' AND pg_get_userbyid(c.relowner) <> 'app4'",
      ),
    ).toEqual([]);
  });
});
