import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runAndSignal, runCli } from "../support/project.js";
import { cleanEnv } from "./store-fixture.js";

// A command niceeval suggests repeats the --store it was given (the README says so; show did
// already): compare and merge of a run that did not finish advised `niceeval run --resume <id>`
// alone, which resumes in the default store, where the run is not.

/** Ten cases whose target takes a while, so a run can be stopped part way. */
const slow = `import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const same = createScorer({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});
export const slow = defineSuite({
  id: "slow",
  concurrency: 1,
  cases: Array.from({ length: 10 }, (_, i) => ({ id: "c" + i, input: i, expected: i })),
  target: async (i) => {
    console.error("TARGET-STARTED " + i);
    await new Promise((r) => setTimeout(r, i === 0 ? 0 : 300));
    return i;
  },
  scorers: [same],
});
`;

describe("the --store of commands niceeval suggests (real CLI)", { timeout: 120_000 }, () => {
  let project: FixtureProject;
  let stoppedId: string;
  const store = "kept runs.sqlite";
  const cli = (args: string[]) => runCli(args, project.dir, { ...cleanEnv, NICEEVAL_STORE: "" });
  beforeAll(async () => {
    project = await makeProject({ "evals/slow.eval.js": slow });
    const whole = await cli(["run", "--name", "whole", "--store", store, "--quiet"]);
    expect(whole.code, whole.stderr).toBe(0);
    const stopped = await runAndSignal(
      ["run", "--name", "stopped", "--store", store, "--quiet"],
      project.dir,
      ["SIGTERM"],
    );
    expect(stopped.code).toBe(143);
    const listed = await cli(["runs", "--json", "--store", store]);
    const runs = JSON.parse(listed.stdout) as { runId: string; name: string; status: string }[];
    const run = runs.find((r) => r.name === "stopped");
    expect(run?.status).toBe("interrupted");
    stoppedId = run!.runId.slice(0, 8);
  });
  afterAll(() => project?.cleanup());

  it("compare of a run that did not finish says to resume it in that store", async () => {
    const compared = await cli(["compare", "whole", "stopped", "--store", store]);
    expect(compared.code).toBe(0);
    expect(compared.stdout).toContain(
      `finish it with niceeval run --resume ${stoppedId} --store 'kept runs.sqlite' and compare again`,
    );
  });

  it("merge of a run that did not finish says to resume it in that store", async () => {
    const merged = await cli(["merge", "stopped", "--name", "m", "--store", store]);
    expect(merged.code).toBe(1);
    expect(merged.stderr).toContain(
      `\`niceeval run --resume ${stoppedId} --store 'kept runs.sqlite'\` runs the rest, then merge again`,
    );
  });
});
