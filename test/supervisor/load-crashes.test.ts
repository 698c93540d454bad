import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";

// Each of these files crashes the eval process while it is imported; the good one must still run.
const aborting = (id: string) => `
import { defineSuite } from "niceeval";
if (process.send) process.abort();
export const s = defineSuite({ id: "${id}", cases: [{ id: "a", input: 1 }], target: (i) => i, scorers: [] });
`;

const good = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const ok = createScorer({ name: "ok", score: ({ output }) => ({ score: output === undefined ? 0 : 1 }) });
export const hello = defineSuite({
  id: "hello",
  cases: [1, 2, 3].map((i) => ({ id: "c" + i, input: i })),
  target: async (i) => i * 2,
  scorers: [ok],
});
`;

describe("eval files whose import crashes the eval process (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({
      "evals/abort.eval.ts": aborting("abort-top"),
      "evals/abort2.eval.ts": aborting("abort2-top"),
      "evals/abort3.eval.ts": aborting("abort3-top"),
      "evals/good.eval.ts": good,
    });
  });
  afterAll(() => project.cleanup());

  it("fails each crashing file to load with its cause and runs the others", async () => {
    const run = await runCli(["run", "--no-store"], project.dir);
    expect(run.code).toBe(1);
    for (const file of ["abort", "abort2", "abort3"])
      expect(run.stdout).toContain(
        `evals/${file}.eval.ts: the eval process ended each time it imported the file (the eval process was killed by SIGABRT)`,
      );
    expect(run.stdout).not.toMatch(/good\.eval\.ts: /);
    expect(run.stdout).toMatch(/✓ c1 passed/);
    expect(run.stdout).toMatch(/✓ c3 passed/);
    // Each crash is said with the file it was importing.
    expect(run.stderr).toMatch(/killed by SIGABRT while loading evals\/abort2\.eval\.ts/);
    expect(run.stderr).not.toMatch(/no eval process could load the eval files/);
  }, 60_000);
});
