import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/eval/record.js";
import type { StoredRun } from "../../src/store/types.js";
import { PG_PASSWORD, startPostgres, type TestPostgres } from "../support/postgres.js";
import { type CliRun, type FixtureProject, makeProject, runCli } from "../support/project.js";
import { evalFileHeader } from "./eval-source.js";

// Issue 12, point 2 end to end: `run --store postgres://…` writes a real PostgreSQL server;
// `runs`, `show` and `compare` read it back, as they do a SQLite file.

const qa = `${evalFileHeader}
const broken = (process.env.BREAK ?? "").split(",");
export const qa = defineSuite<string, string>({
  id: "qa",
  cases: [
    { id: "a", input: "a", expected: "A" },
    { id: "b", input: "b", expected: "B" },
    { id: "c", input: "c", expected: "C" },
  ],
  target: async (input) => (broken.includes(input) ? "wrong" : input.toUpperCase()),
  scorers: [same],
});
`;

const json = <T>(text: string): T => JSON.parse(text) as T;

describe("the CLI on a PostgreSQL store", () => {
  let server: TestPostgres;
  let url: string;
  let project: FixtureProject;
  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCli(args, project.dir, { NICEEVAL_STORE: "", ...env });

  beforeAll(async () => {
    server = await startPostgres();
    url = await server.createDatabase("cli_store");
    project = await makeProject({ "evals/qa.eval.ts": qa });
  }, 120_000);
  afterAll(async () => {
    await project?.cleanup();
    await server?.stop();
  });

  it("runs into the server, then lists, shows and compares the runs", async () => {
    const base = await cli(["run", "--store", url, "--name", "base", "--tag", "db=pg"]);
    expect(base.stderr).toBe("");
    expect(base.code).toBe(0);
    const head = await cli(["run", "--store", url, "--name", "head"], { BREAK: "b" });
    expect(head.code).toBe(1);
    expect(`${base.stdout}${head.stdout}${head.stderr}`).not.toContain(PG_PASSWORD);

    const listed = await cli(["runs", "--store", url]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain("base");
    expect(listed.stdout).toContain("head");
    const rows = json<{ name: string; cases: number; passRate: number; tags: object }[]>(
      (await cli(["runs", "--json"], { NICEEVAL_STORE: url })).stdout,
    );
    expect(rows.map((r) => [r.name, r.cases, r.passRate])).toEqual([
      ["head", 3, 2 / 3],
      ["base", 3, 1],
    ]);
    expect(rows[1]?.tags).toEqual({ db: "pg" });

    const shown = json<{ run: StoredRun; records: AttemptRecord[] }>(
      (await cli(["show", "head", "--json", "--store", url])).stdout,
    );
    expect(shown.run).toMatchObject({ name: "head", status: "finished" });
    expect(shown.run.totals).toMatchObject({ attempts: 3, passed: 2, failed: 1 });
    expect(shown.records.map((r) => [r.caseId, r.verdict])).toEqual([
      ["a", "passed"],
      ["b", "failed"],
      ["c", "passed"],
    ]);
    // The command line is stored with the password masked.
    expect(shown.run.command.join(" ")).toContain("niceeval:***@127.0.0.1");
    expect(JSON.stringify(shown.run)).not.toContain(PG_PASSWORD);

    const compared = await cli(["compare", "base", "head", "--store", url]);
    expect(compared.code).toBe(0);
    expect(compared.stdout).toMatch(/\bb\b/);
    expect(compared.stdout.toLowerCase()).toContain("regress");
    const comparison = json<{ base: { runId: string }; head: { runId: string } }>(
      (await cli(["compare", "base", "head", "--json", "--store", url])).stdout,
    );
    expect(comparison.head.runId).toBe(shown.run.runId);
  }, 120_000);

  it("says which privilege a user lacks and the GRANT that gives it, instead of crashing (exit 2)", async () => {
    const admin = async (database: string, ...statements: string[]) => {
      const client = new pg.Client({ connectionString: server.url(database) });
      await client.connect();
      try {
        for (const statement of statements) await client.query(statement);
      } finally {
        await client.end();
      }
    };
    await admin("postgres", "CREATE ROLE ro LOGIN PASSWORD 'ro-pw-5813'");
    await server.createDatabase("noperm");
    await admin("noperm", "REVOKE CREATE ON SCHEMA public FROM public");
    // A store the admin made: ro has no USAGE on its schema.
    const owned = await server.createDatabase("owned");
    expect((await cli(["run", "--store", owned])).code).toBe(0);
    const as = (database: string) =>
      `postgres://ro:ro-pw-5813@127.0.0.1:${server.port}/${database}`;
    const shown = (database: string) => `postgres://ro:***@127.0.0.1:${server.port}/${database}`;
    const refused = (result: CliRun) => {
      expect(result.code).toBe(2);
      expect(result.stderr).not.toContain("crashed");
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(`${result.stdout}${result.stderr}`).not.toContain("ro-pw-5813");
      expect(result.stdout).not.toContain("qa");
      return result.stderr;
    };

    const create = refused(await cli(["run", "--store", as("noperm")]));
    expect(create).toContain(
      `niceeval: the PostgreSQL user ro may not create niceeval's schema in database noperm on 127.0.0.1:${server.port} (${shown("noperm")}): the first run into a database needs CREATE on it`,
    );
    expect(create).toContain("GRANT CREATE ON DATABASE noperm TO ro");
    // Reading needs no CREATE: nothing is stored there, and nothing is created.
    const none = await cli(["runs", "--store", as("noperm")]);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe(`no runs stored in ${shown("noperm")} (no niceeval tables yet)\n`);

    for (const command of [["run"], ["runs"]]) {
      const usage = refused(await cli([...command, "--store", as("owned")]));
      expect(usage).toContain(
        `niceeval: the PostgreSQL user ro may not use the schema niceeval, where niceeval keeps its runs, in database owned on 127.0.0.1:${server.port} (${shown("owned")})`,
      );
      expect(usage).toContain(
        "Its owner (niceeval) can grant them: GRANT USAGE ON SCHEMA niceeval TO ro;",
      );
    }

    await admin(
      "owned",
      "GRANT USAGE ON SCHEMA niceeval TO ro",
      "GRANT SELECT ON ALL TABLES IN SCHEMA niceeval TO ro",
    );
    const write = refused(await cli(["run", "--store", as("owned")]));
    expect(write).toContain(
      `niceeval: the PostgreSQL user ro may not write runs to the schema niceeval of database owned on 127.0.0.1:${server.port} (${shown("owned")}): it lacks INSERT, UPDATE on niceeval.runs;`,
    );
    expect(write).toContain(
      "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA niceeval TO ro",
    );

    // What the message says to grant is enough.
    await admin(
      "owned",
      "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA niceeval TO ro",
    );
    const granted = await cli(["run", "--store", as("owned"), "--name", "by-ro"]);
    expect(granted.stderr).toBe("");
    expect(granted.code).toBe(0);
    expect((await cli(["runs", "--store", as("owned")])).stdout).toContain("by-ro");
  }, 120_000);

  it("names the owner of a table handed to another role as the one who can grant on it", async () => {
    const sql = async (url: string, ...statements: string[]) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        for (const statement of statements) await client.query(statement);
      } finally {
        await client.end();
      }
    };
    const admin = await server.createDatabase("handed");
    await sql(
      admin,
      "CREATE ROLE keeper LOGIN PASSWORD 'keeper-pw-7730'",
      "CREATE ROLE taker LOGIN PASSWORD 'taker-pw-7730'",
      "GRANT CREATE ON DATABASE handed TO keeper",
    );
    const as = (user: string) =>
      `postgres://${user}:${user}-pw-7730@127.0.0.1:${server.port}/handed`;
    expect((await cli(["run", "--store", as("keeper"), "--name", "first"])).code).toBe(0);
    // Handing a table over moves its owner's rights with it.
    await sql(
      admin,
      "GRANT USAGE ON SCHEMA niceeval TO taker",
      "ALTER TABLE niceeval.run_evals OWNER TO taker",
    );

    const read = await cli(["runs", "--store", as("keeper")]);
    expect(read.code).toBe(2);
    expect(read.stderr).toContain(
      "it lacks SELECT on niceeval.run_evals. taker, who owns niceeval.run_evals, can grant it: GRANT SELECT ON niceeval.run_evals TO keeper; or fix",
    );
    const write = await cli(["run", "--store", as("keeper")]);
    expect(write.code).toBe(2);
    expect(write.stderr).toContain(
      "it lacks SELECT, INSERT, UPDATE on niceeval.run_evals. taker, who owns niceeval.run_evals, can grant it: GRANT SELECT, INSERT, UPDATE, DELETE ON niceeval.run_evals TO keeper; or fix",
    );
    expect(write.stderr).not.toContain("Its owner (keeper)");

    // The grant advised, made by the owner it names, is what keeper lacked.
    await sql(
      as("taker"),
      /GRANT SELECT, INSERT, UPDATE, DELETE ON niceeval.run_evals TO keeper/.exec(write.stderr)![0],
    );
    const again = await cli(["run", "--store", as("keeper"), "--name", "again"]);
    expect(again.stderr).toBe("");
    expect(again.code).toBe(0);
  });

  it("reads a database niceeval never wrote to as a store with no runs, and creates nothing there", async () => {
    const empty = await server.createDatabase("never_written");
    const shown = empty.replace(PG_PASSWORD, "***");
    const runs = await cli(["runs", "--store", empty]);
    expect(runs.stderr).toBe("");
    expect(runs.code).toBe(0);
    expect(runs.stdout).toBe(`no runs stored in ${shown} (no niceeval tables yet)\n`);
    const listed = await cli(["runs", "--json"], { NICEEVAL_STORE: empty });
    expect(listed.stdout).toBe("[]\n");
    for (const command of [
      ["show", "latest"],
      ["compare", "latest~1", "latest"],
      ["export", "latest", "--ndjson", "run.ndjson"],
    ]) {
      const read = await cli([...command, "--store", empty]);
      expect(read.code).toBe(2);
      expect(read.stderr).toBe(
        `niceeval: no store in ${shown}: the database has no niceeval tables, so no run has been stored there yet. \`niceeval run\` creates them; to read another store pass --store <path or URL> or set NICEEVAL_STORE.\n`,
      );
    }
    const client = new pg.Client({ connectionString: empty });
    await client.connect();
    const { rows } = await client.query(
      "SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = 'niceeval'",
    );
    await client.end();
    expect(rows).toEqual([{ n: 0 }]);
  });

  it("stops with exit 2 before any case runs when the server cannot be reached", async () => {
    const down = await cli([
      "run",
      "--store",
      "postgres://ci:hunter2@127.0.0.1:1/evals",
      "--reporter",
      "ndjson=-",
    ]);
    expect(down.code).toBe(2);
    expect(down.stderr).toContain("postgres://ci:***@127.0.0.1:1/evals");
    expect(down.stderr).toContain("refused the connection");
    expect(`${down.stdout}${down.stderr}`).not.toContain("hunter2");
    expect(down.stdout).not.toContain("eval.case");
    const runs = await cli(["runs", "--store", "postgresql://ci:hunter2@127.0.0.1:1/evals"]);
    expect(runs.code).toBe(2);
    expect(runs.stderr).not.toContain("hunter2");
  });
});
