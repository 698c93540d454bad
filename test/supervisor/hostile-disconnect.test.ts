import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, readJsonRecords, runCli } from "../support/project.js";

// A target that cuts the eval process's channel to its supervisor: the eval process can no longer
// be told anything, so it ends; the attempt is errored naming the call, and the run goes on.
const disconnectSuite = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});

export const cutting = defineSuite({
  id: "cutting",
  concurrency: 1,
  cases: [
    { id: "before", input: "a", expected: "a" },
    { id: "disconnects", input: "cut", expected: "cut" },
    { id: "after", input: "b", expected: "b" },
  ],
  target: async (input) => {
    if (input === "cut") process.disconnect();
    await new Promise((resolve) => setTimeout(resolve, 50));
    return input;
  },
  scorers: [same],
});
`;

describe("an attempt that calls process.disconnect() in the eval process (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/cutting.eval.js": disconnectSuite });
  });
  afterAll(() => project.cleanup());

  it("is errored naming the call and where it was made, and the run goes on", async () => {
    const run = await runCli(["run", "evals", "--json", "r.json", "--no-store"], project.dir);
    const records = await readJsonRecords(project.dir, "r.json");
    expect(records.map((r) => `${r.caseId}:${r.verdict}`)).toEqual([
      "before:passed",
      "disconnects:errored",
      "after:passed",
    ]);
    const said =
      /the code under test called process\.disconnect\(\) at .*cutting\.eval\.js:\d+:\d+\)?, which cut the eval process off from niceeval/;
    const error = records[1]?.error;
    expect(error?.message).toMatch(said);
    expect(error?.message).toContain("do not call it in code under test");
    // The crash notice on stderr says it too.
    expect(run.stderr).toMatch(said);
    // It ends the eval process again when run alone: the exit is the attempt's, not the run's.
    expect(run.stdout).not.toMatch(/belonged to no case/);
    expect(run.code).toBe(1);
  }, 60_000);
});
