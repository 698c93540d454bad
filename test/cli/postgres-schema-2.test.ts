import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgresStore } from "../../src/store/index.js";
import { attempt, manifest } from "../store/fixtures.js";
import { startPostgres, type TestPostgres } from "../support/postgres.js";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";
import { evalFileHeader } from "./eval-source.js";

// A PostgreSQL store an older niceeval wrote (schema 2, before run_evals counted the attempts a
// stop cut off) through the real CLI: `runs` and `show` read it as it is, `run` upgrades it.

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
});
