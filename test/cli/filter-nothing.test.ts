import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";
import { cleanEnv, qaEval } from "./store-fixture.js";

// A --filter that selects no case exits 2 (CI cannot pass by running nothing); the store keeps
// no trace of that run, so `latest` stays the run before it.
describe("a --filter that selects nothing, with a real SQLite store (real CLI)", () => {
  let project: FixtureProject;
  const cli = (args: string[]) => runCli(args, project.dir, cleanEnv);
  const storedRuns = async () =>
    JSON.parse((await cli(["runs", "--json"])).stdout) as { runId: string; name: string | null }[];

  beforeAll(async () => {
    project = await makeProject({ "evals/qa.eval.ts": qaEval });
  });
  afterAll(() => project.cleanup());

  it("stores no run, so latest and --baseline latest are still the run before", async () => {
    const first = await cli(["run", "--name", "kept"]);
    expect(first.code).toBe(0);
    for (const supervise of [[], ["--no-supervise"]]) {
      const nothing = await cli([
        "run",
        "--filter",
        "no-such-case",
        "--name",
        "empty",
        ...supervise,
      ]);
      expect(nothing.code).toBe(2);
      expect(nothing.stderr).toContain('--filter "no-such-case" selected no case');
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
});
