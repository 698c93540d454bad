import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";
import { evalFileHeader } from "./eval-source.js";

// `niceeval runs` gives a pass rate of the judged attempts: its n leaves skipped ones out, as
// the rate and its interval do.

const evals = `${evalFileHeader}
import { defineAdapter } from "niceeval";
export const pair = defineSuite<string, string>({
  id: "pair",
  cases: [
    { id: "a", input: "a", expected: "a" },
    { id: "b", input: "b", expected: "b" },
  ],
  target: (input) => input,
  scorers: [same],
});
const adapter = defineAdapter({ name: "nothing", create: () => ({}) });
export const later = adapter.defineScoreEval({
  description: "not ready yet",
  test(t) {
    t.skip("the feature is not built");
  },
});
`;

describe("niceeval runs with skipped attempts (real CLI)", { timeout: 60_000 }, () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/mixed.eval.ts": evals });
  });
  afterAll(() => project.cleanup());

  it("counts the judged attempts in n", async () => {
    const run = await runCli(["run", "--name", "mixed"], project.dir);
    expect(run.stdout).toContain("skipped");
    expect(run.code).toBe(0);
    const listed = await runCli(["runs"], project.dir);
    expect(listed.code).toBe(0);
    // 3 attempts, 1 skipped: 2 of 2 judged passed.
    expect(listed.stdout).toMatch(/mixed\s.*finished\s+3\s+100\.0% \[\d+\.\d%, 100\.0%\] n=2\s/);
    const json = JSON.parse((await runCli(["runs", "--json"], project.dir)).stdout);
    expect(json[0]).toMatchObject({ attempts: 3, skipped: 1, passed: 2, passRate: 1 });
  });
});
