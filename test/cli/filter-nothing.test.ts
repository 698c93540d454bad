import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runAndSignal, runCli } from "../support/project.js";
import { cleanEnv, qaEval } from "./store-fixture.js";

// A --filter that selects no case exits 2 (CI cannot pass by running nothing); the store keeps
// no trace of that run, so `latest` stays the run before it.
// One case that says it started, then takes long enough to be killed.
const slowEval = `import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const ran = createScorer({ name: "ran", score: () => ({ score: 1 }) });
export const slow = defineSuite({
  id: "slow",
  cases: [{ id: "long", input: 1 }],
  target: async (input) => {
    process.stderr.write("TARGET-STARTED\\n");
    await new Promise((r) => setTimeout(r, process.env.FAST ? 0 : 5000));
    return input;
  },
  scorers: [ran],
});
`;

describe("a --filter that selects nothing, with a real SQLite store (real CLI)", () => {
  let project: FixtureProject;
  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCli(args, project.dir, { ...cleanEnv, ...env });
  const storedRuns = async () =>
    JSON.parse((await cli(["runs", "--json"])).stdout) as {
      runId: string;
      name: string | null;
      status: string;
    }[];

  beforeAll(async () => {
    project = await makeProject({ "evals/qa.eval.ts": qaEval, "evals/slow.eval.ts": slowEval });
  });
  afterAll(() => project.cleanup());

  // A filter written as a regular expression without slashes (`qa.*`, as Vitest's -t takes it)
  // is matched as text, so it selects nothing: the message says how to write it.
  it("says how to write a filter that reads as a regular expression", async () => {
    const regexLike = await cli(["run", "--filter", "q.*", "--no-store"]);
    expect(regexLike.code).toBe(2);
    expect(regexLike.stderr).toContain(
      '--filter matches the text as written; for a regular expression write it between slashes: --filter "/q.*/"',
    );
    const plain = await cli(["run", "--filter", "no-such-case", "--no-store"]);
    expect(plain.stderr).not.toContain("between slashes");
  });

  it("stores no run, so latest and --baseline latest are still the run before", async () => {
    const first = await cli(["run", "--name", "kept", "--filter", "qa/"]);
    expect(first.code).toBe(0);
    for (const supervise of [[], ["--no-supervise"]]) {
      const nothing = await cli([
        "run",
        "--filter",
        "no-such-case",
        "--name",
        "empty",
        "--reporter",
        "json=empty.json",
        "--reporter",
        "markdown=empty.md",
        ...supervise,
      ]);
      expect(nothing.code).toBe(2);
      expect(nothing.stderr).toContain('--filter "no-such-case" selected no case');
      // The reports say what the exit code says: the run did not pass.
      const json = JSON.parse(readFileSync(join(project.dir, "empty.json"), "utf8"));
      expect(json.summary.ok).toBe(false);
      expect(json.summary.gates).toEqual(['--filter "no-such-case" selected no case']);
      expect(readFileSync(join(project.dir, "empty.md"), "utf8")).toContain(
        "## niceeval ❌ failed",
      );
    }
    const runs = await storedRuns();
    expect(runs.map((run) => run.name)).toEqual(["kept"]);
    // A filter that selects something is stored as usual, and compared with the run before.
    const some = await cli(["run", "--filter", "qa/a", "--name", "some", "--baseline", "latest"]);
    expect(some.code).toBe(0);
    expect(some.stdout).toContain("kept");
    expect((await storedRuns()).map((run) => run.name).sort()).toEqual(["kept", "some"]);
    const compared = await cli(["run", "--filter", "nothing-here", "--baseline", "latest"]);
    expect(compared.code).toBe(2);
    expect(compared.stderr).not.toMatch(/crashed|failed/);
    expect((await storedRuns()).map((run) => run.name).sort()).toEqual(["kept", "some"]);
  });

  it("stores each shard of a sharded run, also the one the filter selects nothing of", async () => {
    const codes: (number | null)[] = [];
    const said: string[] = [];
    for (const shard of ["1/2", "2/2"]) {
      const run = await cli([
        "run",
        "--shard",
        shard,
        "--filter",
        "qa/a",
        "--name",
        `shard-${shard[0]}`,
      ]);
      codes.push(run.code);
      said.push(run.stderr);
    }
    // qa/a is in one of the two shards: the other is an empty shard, not a usage error.
    expect(codes).toEqual([0, 0]);
    expect(
      said.filter((text) => text.includes('--filter "qa/a" selected no case of shard')),
    ).toHaveLength(1);
    const names = (await storedRuns()).map((run) => run.name);
    expect(names).toContain("shard-1");
    expect(names).toContain("shard-2");
  });

  it("stores a filtered run as soon as its first attempt starts, so a killed one can be resumed", async () => {
    const killed = await runAndSignal(
      ["run", "--filter", "slow/", "--name", "killed"],
      project.dir,
      ["SIGKILL"],
    );
    expect(killed.code).toBe(null);
    const runs = await storedRuns();
    expect(runs[0]?.name).toBe("killed");
    const resumed = await cli(["run", "--resume"], { FAST: "1" });
    expect(resumed.code, resumed.stderr).toBe(0);
    const after = await storedRuns();
    expect(after).toHaveLength(runs.length);
    expect(after[0]).toMatchObject({ runId: runs[0]!.runId, name: "killed", status: "finished" });
  });
});
