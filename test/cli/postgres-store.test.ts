import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/eval/record.js";
import type { StoredRun } from "../../src/store/types.js";
import { PG_PASSWORD, startPostgres, type TestPostgres } from "../support/postgres.js";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";
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
