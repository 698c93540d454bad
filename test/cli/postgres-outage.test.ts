import { writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPostgres, type TestPostgres } from "../support/postgres.js";
import { type FixtureProject, makeProject, runCli, startCli } from "../support/project.js";
import { evalFileHeader } from "./eval-source.js";

// A PostgreSQL store that goes away in the middle of a run (a restart, its connections ended, a
// server that stops answering): the run waits for it a while, writes every attempt once it is
// back, and when it does not come back says so, exits 2, and `--resume` completes the run.

const CASES = 200;
const FIRST = 100;
// The first FIRST cases end at once; the others wait until the test creates the file $GATE, so
// the outage is made while the run is under way, after FIRST attempts were stored.
const gated = `${evalFileHeader}
import { existsSync } from "node:fs";
const gate = process.env.GATE ?? "";
export const many = defineSuite<string, string>({
  id: "many",
  cases: Array.from({ length: ${CASES} }, (_, i) => ({ id: "c" + String(i).padStart(3, "0"), input: String(i), expected: String(i) })),
  target: async (input) => {
    while (Number(input) >= ${FIRST} && gate !== "" && !existsSync(gate))
      await new Promise((resolve) => setTimeout(resolve, 20));
    return input;
  },
  scorers: [same],
});
`;

async function sql<T>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

/** The attempts stored for the run named `name`: how many, and how many distinct keys. */
async function stored(url: string, name: string): Promise<{ n: number; keys: number }> {
  const [row] = await sql<{ n: number; keys: number }>(
    url,
    `SELECT count(*)::int AS n, count(DISTINCT (a.ev, a.case_id, a.trial))::int AS keys
     FROM niceeval.attempts a JOIN niceeval.runs r ON r.rid = a.rid WHERE r.name = '${name}'`,
  );
  return row!;
}

/** Wait until the run named `name` has at least `count` attempts stored. */
async function untilStored(url: string, name: string, count: number): Promise<void> {
  for (;;) {
    const now = await stored(url, name).catch(() => ({ n: 0 }));
    if (now.n >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("a run whose PostgreSQL store goes away mid-run", () => {
  let server: TestPostgres;
  let project: FixtureProject;

  beforeAll(async () => {
    server = await startPostgres();
    project = await makeProject({ "evals/many.eval.ts": gated });
  }, 120_000);
  afterAll(async () => {
    await project?.cleanup();
    await server?.stop();
  });

  /** Start `run --store url --name name`, its slow cases held until `open()`. */
  const start = (url: string, name: string, env: Record<string, string> = {}) => {
    const gate = join(project.dir, `gate-${name}`);
    let stderr = "";
    const run = startCli(
      ["run", "--store", url, "--name", name, "--concurrency", "8"],
      project.dir,
      (all) => {
        stderr = all;
      },
      { NICEEVAL_STORE: "", GATE: gate, ...env },
    );
    return {
      ...run,
      stderr: () => stderr,
      open: () => writeFileSync(gate, ""),
    };
  };
  const until = async (what: () => boolean) => {
    while (!what()) await new Promise((resolve) => setTimeout(resolve, 50));
  };

  it("restarted (fast shutdown, started again on its port): the run waits for it and stores every attempt once", async () => {
    const url = await server.createDatabase("restarted");
    const run = start(url, "restarted");
    await untilStored(url, "restarted", FIRST);
    await server.halt();
    run.open();
    // The run says it waits for the store, naming it.
    await until(() => run.stderr().includes(`127.0.0.1:${server.port}`));
    await server.restart();
    const { code, stderr } = await run.ended;
    expect(stderr).toContain(
      `niceeval: the store postgres://niceeval:***@127.0.0.1:${server.port}/restarted did not take a write`,
    );
    expect(stderr).toContain("answers again");
    expect(stderr).not.toContain("not stored whole");
    expect(code).toBe(0);
    expect(await stored(url, "restarted")).toEqual({ n: CASES, keys: CASES });
    const [runRow] = await sql<{ status: string }>(
      url,
      "SELECT status FROM niceeval.runs WHERE name = 'restarted'",
    );
    expect(runRow?.status).toBe("finished");
  }, 60_000);

  it("its connections ended (pg_terminate_backend) while a write waits: nothing lost, no crash", async () => {
    const url = await server.createDatabase("terminated");
    const run = start(url, "terminated");
    await untilStored(url, "terminated", FIRST);
    // Hold the run's row, so the next write waits on its connection, then end every connection.
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query("BEGIN");
    await admin.query("SELECT 1 FROM niceeval.runs WHERE name = 'terminated' FOR UPDATE");
    run.open();
    for (;;) {
      const waiting = await sql<{ pid: number }>(
        url,
        "SELECT pid FROM pg_stat_activity WHERE application_name = 'niceeval' AND wait_event_type = 'Lock'",
      );
      if (waiting.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await sql(
      url,
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'niceeval'",
    );
    await admin.query("ROLLBACK");
    await admin.end();
    const { code, stderr } = await run.ended;
    expect(stderr).not.toContain("crashed");
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(stderr).not.toContain("not stored whole");
    expect(code).toBe(0);
    expect(await stored(url, "terminated")).toEqual({ n: CASES, keys: CASES });
  }, 60_000);

  it("never answering (every process SIGSTOPped): exit 2 naming the server and --resume, no hang; --resume completes the run", async () => {
    const url = await server.createDatabase("frozen");
    const run = start(url, "frozen", { NICEEVAL_STORE_OUTAGE_MS: "3000" });
    await untilStored(url, "frozen", FIRST);
    server.freeze("SIGSTOP");
    let ended: Awaited<typeof run.ended> | "hung";
    try {
      run.open();
      // Far past its 3 s wait: a run still going then waits for the store for good.
      ended = await Promise.race([
        run.ended,
        new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), 40_000).unref()),
      ]);
    } finally {
      server.freeze("SIGCONT");
      if (run.child.exitCode === null) run.child.kill("SIGKILL");
    }
    if (ended === "hung")
      throw new Error(`the run hung on a store that never answers:\n${run.stderr()}`);
    const where = `postgres://niceeval:***@127.0.0.1:${server.port}/frozen`;
    expect(ended.stderr).toContain(`niceeval: the store ${where} did not take a write`);
    expect(ended.stderr).toContain("did not answer");
    expect(ended.stderr).toMatch(
      new RegExp(
        `the run is not stored whole in ${where.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\(see above\\): \\d+ of its ${CASES} attempts were not written`,
      ),
    );
    expect(ended.stderr).toContain("niceeval run --resume");
    expect(ended.code).toBe(2);
    const id = /--resume (\w+)/.exec(ended.stderr)![1]!;
    const resumed = await runCli(["run", "--resume", id, "--store", url], project.dir, {
      NICEEVAL_STORE: "",
    });
    expect(resumed.stderr).not.toContain("not stored whole");
    expect(resumed.code).toBe(0);
    expect(await stored(url, "frozen")).toEqual({ n: CASES, keys: CASES });
  }, 60_000);

  it("ends its wait for a store that went away at the first SIGINT, not at the outage limit", async () => {
    const url = await server.createDatabase("waiting");
    const run = start(url, "waiting", { NICEEVAL_STORE_OUTAGE_MS: "120000" });
    await untilStored(url, "waiting", FIRST);
    await server.halt();
    let ended: Awaited<typeof run.ended>;
    let waited = 0;
    try {
      run.open();
      await until(() => run.stderr().includes("did not take a write"));
      const signalled = performance.now();
      run.child.kill("SIGINT");
      ended = await run.ended;
      waited = performance.now() - signalled;
    } finally {
      await server.restart();
    }
    expect(ended.stderr).toMatch(
      /niceeval: SIGINT: the run no longer waits for the store postgres:\/\/niceeval:\*\*\*@127\.0\.0\.1:\d+\/waiting; the attempts it has not written are counted below as not stored/,
    );
    expect(ended.stderr).toMatch(/\d+ of its \d+ attempts were not written/);
    expect(ended.code).toBe(130);
    // Within the grace period (10 s) and the attempts' end, far from the 120 s outage limit.
    expect(waited).toBeLessThan(30_000);
  }, 90_000);

  it("stopped by SIGINT while it waits for a store that never answers: exit 130, and no claim that the store holds the run", async () => {
    const url = await server.createDatabase("stopped");
    const run = start(url, "stopped", { NICEEVAL_STORE_OUTAGE_MS: "3000" });
    await untilStored(url, "stopped", FIRST);
    server.freeze("SIGSTOP");
    let ended: Awaited<typeof run.ended>;
    try {
      run.open();
      await until(() => run.stderr().includes("did not take a write"));
      run.child.kill("SIGINT");
      ended = await run.ended;
    } finally {
      server.freeze("SIGCONT");
    }
    expect(ended.code).toBe(130);
    expect(ended.stderr).not.toContain("the report and the store hold every attempt that finished");
    expect(ended.stderr).toMatch(
      /niceeval: interrupted by SIGINT; the report holds every attempt that finished, but the store postgres:\/\/niceeval:\*\*\*@127\.0\.0\.1:\d+\/stopped does not: \d+ of its \d+ attempts were not written \(see above\); once it answers, `niceeval run --resume \w+ --store 'postgres:\/\/niceeval:\*\*\*@127\.0\.0\.1:\d+\/stopped'` runs the rest/,
    );
  }, 60_000);
});
