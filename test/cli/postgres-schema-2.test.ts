import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgresStore } from "../../src/store/index.js";
import { attempt, manifest } from "../store/fixtures.js";
import { PG_USER, startPostgres, type TestPostgres } from "../support/postgres.js";
import { type CliRun, type FixtureProject, makeProject, runCli } from "../support/project.js";
import { evalFileHeader } from "./eval-source.js";

// A PostgreSQL store an older niceeval wrote (schema 2, before run_evals counted the attempts a
// stop cut off; or schema 1, before the history of replaced attempts) through the real CLI:
// `runs` and `show` read it as it is, `run` upgrades it.

const qa = `${evalFileHeader}
export const qa = defineSuite<string, string>({
  id: "qa",
  cases: [{ id: "a", input: "a", expected: "A" }],
  target: async (input) => input.toUpperCase(),
  scorers: [same],
});
`;

/** An error cell edited by hand: it names the key, but is not JSON. */
const HALF_EDITED = '{"message":"interrupted by SIGINT","where":"target","interrupted":tr';

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

/** What takes a database this niceeval wrote back to schema 2. */
const BACK_TO_2 = [
  "ALTER TABLE niceeval.run_evals DROP COLUMN interrupted",
  "DELETE FROM niceeval.schema_version WHERE version > 2",
];

/** What takes a database this niceeval wrote back to schema 1 (as a superuser, who may drop). */
const BACK_TO_1 = [
  "ALTER TABLE niceeval.run_evals DROP COLUMN interrupted",
  "DROP TABLE niceeval.attempt_history",
  "DELETE FROM niceeval.schema_version WHERE version > 1",
];

/** Store run `crashed`: one attempt passed and two the stop cut off (errored, interrupted). */
async function storeCrashedRun(url: string): Promise<void> {
  const store = await openPostgresStore(url);
  await store.beginRun(manifest("crashed", { evals: ["alpha"], name: "crashed" }));
  const cutOff = (index: number) => {
    const record = attempt("alpha", index, { verdict: "errored" });
    record.error = { message: "interrupted by SIGINT", where: "target", interrupted: true };
    return record;
  };
  await store.appendAttempts("crashed", [attempt("alpha", 0), cutOff(1), cutOff(2)]);
  await store.close();
}

describe("a PostgreSQL store of schema 2 through the real CLI", { timeout: 120_000 }, () => {
  let server: TestPostgres;
  let project: FixtureProject;
  const cli = (args: string[]) => runCli(args, project.dir, { NICEEVAL_STORE: "" });

  beforeAll(async () => {
    server = await startPostgres();
    project = await makeProject({ "evals/qa.eval.ts": qa });
  }, 120_000);
  afterAll(async () => {
    await project?.cleanup();
    await server?.stop();
  });

  it("an error cell edited into something that is not JSON is not counted, and crashes nothing", async () => {
    const url = await server.createDatabase("half_edited");
    await storeCrashedRun(url);
    await sql(
      url,
      ...BACK_TO_2,
      `UPDATE niceeval.attempts SET error = '${HALF_EDITED}' WHERE case_id = 'case-2'`,
    );

    const runs = await cli(["runs", "--store", url]);
    expect(runs.stderr).toBe("");
    expect(runs.code).toBe(0);
    expect(runs.stdout).toContain("crashed");
    const show = await cli(["show", "crashed", "--store", url]);
    expect(show.code).toBe(2);
    expect(show.stderr).toContain(
      'holds an attempt that cannot be read, damaged or edited by hand: run crashed (crashed), eval "alpha", case "case-2", trial 1, column error',
    );
    expect(show.stderr).not.toContain("crashed:");

    const run = await cli(["run", "--store", url, "--name", "after"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(await sql(url, "SELECT max(version) AS v FROM niceeval.schema_version")).toEqual([
      { v: 3 },
    ]);
    // The upgrade counted the cut-off attempt whose cell is JSON, not the edited one.
    expect(
      await sql(
        url,
        "SELECT e.interrupted FROM niceeval.run_evals e JOIN niceeval.runs r USING (rid) WHERE r.id = 'crashed'",
      ),
    ).toEqual([{ interrupted: 1 }]);
    const after = await cli(["runs", "--store", url]);
    expect(after.code).toBe(0);
    expect(after.stdout).toContain("after");
  });

  it("a user with every grant but not the table's owner is told who can upgrade it, and still reads it", async () => {
    const url = await server.createDatabase("granted");
    await storeCrashedRun(url);
    await sql(
      url,
      ...BACK_TO_2,
      "CREATE ROLE bob LOGIN PASSWORD 'bob-pw-4417'",
      "GRANT USAGE, CREATE ON SCHEMA niceeval TO bob",
      "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA niceeval TO bob",
      "GRANT CREATE ON DATABASE granted TO bob",
    );
    const asBob = `postgres://bob:bob-pw-4417@127.0.0.1:${server.port}/granted`;
    const shown = `postgres://bob:***@127.0.0.1:${server.port}/granted`;
    const refused = (result: CliRun) => {
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).not.toContain("crashed");
      expect(result.stderr).not.toContain("bob-pw-4417");
      // No grant bob holds is advised.
      expect(result.stderr).not.toMatch(/GRANT (USAGE|CREATE|SELECT)/);
      return result.stderr;
    };
    const notOwner = `niceeval: the schema niceeval of database granted on 127.0.0.1:${server.port} (${shown}) was written by an older niceeval (schema version 2, this one writes 3), and the PostgreSQL user bob may not upgrade it (reading runs needs no upgrade): step 3 (counting the attempts a stop cut off) alters the table niceeval.run_evals, which only its owner (${PG_USER}) may do. Make one run into it as ${PG_USER}, which upgrades it, or have a superuser make bob a member of the role ${PG_USER} (GRANT ${PG_USER} TO bob), which lets it alter the tables and leaves them ${PG_USER}'s; or fix --store or NICEEVAL_STORE, or pass --store <path> to keep runs in a SQLite file.\n`;
    expect(refused(await cli(["run", "--store", asBob]))).toBe(notOwner);
    // Without CREATE on the schema, which step 3 does not need: the same words.
    await sql(url, "REVOKE CREATE ON SCHEMA niceeval FROM bob");
    expect(refused(await cli(["run", "--store", asBob]))).toBe(notOwner);
    expect(await sql(url, "SELECT max(version) AS v FROM niceeval.schema_version")).toEqual([
      { v: 2 },
    ]);
    // Reading does not upgrade: bob lists the run as it is.
    const runs = await cli(["runs", "--store", asBob]);
    expect(runs.stderr).toBe("");
    expect(runs.code).toBe(0);
    expect(runs.stdout).toContain("crashed");

    // One run as the owner upgrades it; bob writes with the grants it has.
    expect((await cli(["run", "--store", url, "--name", "owner"])).code).toBe(0);
    const bobRun = await cli(["run", "--store", asBob, "--name", "bob"]);
    expect(bobRun.stderr).toBe("");
    expect(bobRun.code).toBe(0);
  });

  it("the advice to a user who may not upgrade keeps the store its owner's, who still reads and writes it", async () => {
    const admin = await server.createDatabase("owned_by_app");
    await sql(
      admin,
      "CREATE ROLE app LOGIN PASSWORD 'app-pw-5521'",
      "CREATE ROLE dave LOGIN PASSWORD 'dave-pw-5521'",
      "GRANT CREATE ON DATABASE owned_by_app TO app",
    );
    const as = (user: string) =>
      `postgres://${user}:${user}-pw-5521@127.0.0.1:${server.port}/owned_by_app`;
    expect((await cli(["run", "--store", as("app"), "--name", "first"])).code).toBe(0);
    await sql(admin, ...BACK_TO_2);
    await sql(
      as("app"),
      "GRANT USAGE, CREATE ON SCHEMA niceeval TO dave",
      "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA niceeval TO dave",
    );
    const refused = await cli(["run", "--store", as("dave"), "--name", "dave"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).not.toContain("OWNER TO");
    expect(refused.stderr).toContain(
      "which only its owner (app) may do. Make one run into it as app, which upgrades it, or have a superuser make dave a member of the role app (GRANT app TO dave), which lets it alter the tables and leaves them app's; or fix",
    );

    // Following the advice as a superuser: dave upgrades the store, and app keeps it.
    await sql(admin, /GRANT app TO dave/.exec(refused.stderr)![0]);
    const dave = await cli(["run", "--store", as("dave"), "--name", "dave"]);
    expect(dave.stderr).toBe("");
    expect(dave.code).toBe(0);
    expect(await sql(admin, "SELECT max(version) AS v FROM niceeval.schema_version")).toEqual([
      { v: 3 },
    ]);
    expect(
      await sql(
        admin,
        "SELECT DISTINCT pg_get_userbyid(relowner) AS owner FROM pg_class WHERE relnamespace = 'niceeval'::regnamespace AND relkind = 'r'",
      ),
    ).toEqual([{ owner: "app" }]);
    const app = await cli(["run", "--store", as("app"), "--name", "app"]);
    expect(app.stderr).toBe("");
    expect(app.code).toBe(0);
    const runs = await cli(["runs", "--store", as("app")]);
    expect(runs.stderr).toBe("");
    expect(runs.code).toBe(0);
    for (const name of ["first", "dave", "app"]) expect(runs.stdout).toContain(name);
  });

  it("a user who owns the table the step alters upgrades without CREATE on the database or schema", async () => {
    const url = await server.createDatabase("owned_by_carol");
    await storeCrashedRun(url);
    await sql(
      url,
      ...BACK_TO_2,
      "CREATE ROLE carol LOGIN PASSWORD 'carol-pw-8120'",
      "REVOKE CREATE ON DATABASE owned_by_carol FROM PUBLIC",
      "GRANT USAGE ON SCHEMA niceeval TO carol",
      "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA niceeval TO carol",
      "ALTER TABLE niceeval.run_evals OWNER TO carol",
    );
    const asCarol = `postgres://carol:carol-pw-8120@127.0.0.1:${server.port}/owned_by_carol`;
    const run = await cli(["run", "--store", asCarol, "--name", "carol"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(await sql(url, "SELECT max(version) AS v FROM niceeval.schema_version")).toEqual([
      { v: 3 },
    ]);
  });

  it("a member of the owner's role upgrading from schema 1 leaves the table a step creates the owner's", async () => {
    const admin = await server.createDatabase("app_schema_1");
    await sql(
      admin,
      "CREATE ROLE app1 LOGIN PASSWORD 'app1-pw-6630'",
      "CREATE ROLE erin LOGIN PASSWORD 'erin-pw-6630'",
      "GRANT CREATE ON DATABASE app_schema_1 TO app1",
    );
    const as = (user: string) =>
      `postgres://${user}:${user}-pw-6630@127.0.0.1:${server.port}/app_schema_1`;
    expect((await cli(["run", "--store", as("app1"), "--name", "first"])).code).toBe(0);
    await sql(admin, ...BACK_TO_1, "GRANT app1 TO erin");

    const erin = await cli(["run", "--store", as("erin"), "--name", "erin"]);
    expect(erin.stderr).toBe("");
    expect(erin.code).toBe(0);
    expect(await sql(admin, "SELECT max(version) AS v FROM niceeval.schema_version")).toEqual([
      { v: 3 },
    ]);
    // attempt_history, which step 2 created, is app1's like every other table.
    expect(
      await sql(
        admin,
        "SELECT c.relname AS table, pg_get_userbyid(c.relowner) AS owner FROM pg_class c WHERE c.relnamespace = 'niceeval'::regnamespace AND c.relkind = 'r' AND pg_get_userbyid(c.relowner) <> 'app1'",
      ),
    ).toEqual([]);
    expect(
      await sql(
        admin,
        "SELECT count(*)::int AS n FROM pg_class WHERE relnamespace = 'niceeval'::regnamespace AND relname = 'attempt_history'",
      ),
    ).toEqual([{ n: 1 }]);

    const app = await cli(["run", "--store", as("app1"), "--name", "app"]);
    expect(app.stderr).toBe("");
    expect(app.code).toBe(0);
    const runs = await cli(["runs", "--store", as("app1")]);
    expect(runs.stderr).toBe("");
    expect(runs.code).toBe(0);
    for (const name of ["first", "erin", "app"]) expect(runs.stdout).toContain(name);
    // erin, still a member, writes to the upgraded store too.
    const again = await cli(["run", "--store", as("erin"), "--name", "erin-again"]);
    expect(again.stderr).toBe("");
    expect(again.code).toBe(0);
  });

  it("a superuser upgrades a store as its owner; a member the server may not switch to the owner upgrades as itself", async () => {
    const admin = await server.createDatabase("app_upgraded");
    await sql(
      admin,
      "CREATE ROLE app2 LOGIN PASSWORD 'app2-pw-7741'",
      "CREATE ROLE frank LOGIN PASSWORD 'frank-pw-7741'",
      "GRANT CREATE ON DATABASE app_upgraded TO app2",
    );
    const as = (user: string) =>
      `postgres://${user}:${user}-pw-7741@127.0.0.1:${server.port}/app_upgraded`;
    const owners = () =>
      sql(
        admin,
        "SELECT c.relname AS table, pg_get_userbyid(c.relowner) AS owner FROM pg_class c WHERE c.relnamespace = 'niceeval'::regnamespace AND c.relkind = 'r' AND pg_get_userbyid(c.relowner) <> 'app2'",
      );
    expect((await cli(["run", "--store", as("app2"), "--name", "first"])).code).toBe(0);

    // The test's superuser (PG_USER) upgrades app2's store: the new table is app2's.
    await sql(admin, ...BACK_TO_1);
    const superuser = await cli(["run", "--store", admin, "--name", "superuser"]);
    expect(superuser.stderr).toBe("");
    expect(superuser.code).toBe(0);
    expect(await owners()).toEqual([]);
    expect((await cli(["run", "--store", as("app2"), "--name", "app"])).code).toBe(0);

    // frank has app2's rights but may not SET ROLE app2: it upgrades as itself, as before.
    await sql(admin, ...BACK_TO_1, "GRANT app2 TO frank WITH SET FALSE");
    const frank = await cli(["run", "--store", as("frank"), "--name", "frank"]);
    expect(frank.stderr).toBe("");
    expect(frank.code).toBe(0);
    expect(await owners()).toEqual([{ table: "attempt_history", owner: "frank" }]);
    expect(await sql(admin, "SELECT max(version) AS v FROM niceeval.schema_version")).toEqual([
      { v: 3 },
    ]);

    // A table a step alters is a role's app2 is no member of: app2 could not apply the step, so
    // the superuser applies it as itself, as before.
    await sql(
      admin,
      ...BACK_TO_2,
      "CREATE ROLE gina NOLOGIN",
      "ALTER TABLE niceeval.run_evals OWNER TO gina",
    );
    const past = await cli(["run", "--store", admin, "--name", "past-gina"]);
    expect(past.stderr).toBe("");
    expect(past.code).toBe(0);
    expect(await sql(admin, "SELECT max(version) AS v FROM niceeval.schema_version")).toEqual([
      { v: 3 },
    ]);
  });
});
