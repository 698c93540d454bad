import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";

// runCli gives the CLI sockets for stdout and stderr, as any Node parent does (a test runner, a
// task runner): a target that ends process.stdout must not shut down the socket the CLI's
// reports are written to, which the eval process shares.
const endsStdout = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});

export const ends = defineSuite({
  id: "ends",
  concurrency: 1,
  cases: [
    { id: "before", input: "a", expected: "a" },
    { id: "ends-stdout", input: "stdout", expected: "stdout" },
    { id: "ends-stderr", input: "stderr", expected: "stderr" },
    { id: "last", input: "b", expected: "b" },
  ],
  target: async (input) => {
    if (input === "stdout") process.stdout.end();
    if (input === "stderr") process.stderr.end();
    await new Promise((resolve) => setTimeout(resolve, 5));
    return input;
  },
  scorers: [same],
});
`;

describe("a target that ends process.stdout or process.stderr (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/ends.eval.js": endsStdout });
  });
  afterAll(() => project.cleanup());

  for (const mode of [[], ["--no-supervise"]]) {
    const label = mode.length ? ` (${mode[0]})` : "";
    it(`leaves the CLI's report whole${label}`, async () => {
      const run = await runCli(["run", "--no-store", ...mode], project.dir);
      expect(run.stderr).not.toMatch(/closed its pipe/);
      expect(run.stdout).toMatch(/✓ last passed/);
      expect(run.stdout).toMatch(/4 passed/);
      expect(run.code).toBe(0);
    }, 60_000);

    it(`leaves the human report on stderr whole with --reporter ndjson=-${label}`, async () => {
      const run = await runCli(
        ["run", "--no-store", "--reporter", "ndjson=-", ...mode],
        project.dir,
      );
      expect(run.stderr).toMatch(/4 passed/);
      expect(run.stdout.trim().split("\n").length).toBeGreaterThanOrEqual(4);
      expect(run.code).toBe(0);
    }, 60_000);
  }
});
