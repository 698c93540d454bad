import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/eval/record.js";
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

// A skipped trial is out of the mean score as it is out of the pass rate, alike in the console,
// the JSON report and the store; the trials line says how many trials were skipped.
const trialEvals = `
import { defineAdapter } from "niceeval";
import { atLeast } from "niceeval/expect";
const app = defineAdapter({ name: "tr", create: async (ctx) => ({ n: ctx.trial }), assertions: () => ({}) });
export const tr = app.defineScoreEval({
  id: "tr",
  description: "x",
  trials: 3,
  test(t) {
    t.check(t.n, atLeast(1)).score(10).label("n>=1");
    if (t.n === 2) t.skip("n/a");
  },
});
`;

describe("a skipped trial and the mean score (real CLI)", { timeout: 60_000 }, () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/tr.eval.ts": trialEvals });
  });
  afterAll(() => project.cleanup());

  it("leaves it out of the mean everywhere and gives it no score", async () => {
    const run = await runCli(["run", "--name", "tr", "--json", "tr.json"], project.dir);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("  - default [trial 3] skipped · unavailable (max 10) ·");
    expect(run.stdout).toMatch(
      // Two trials of one case: no interval can be drawn from one case.
      / {2}3 attempts: 2 passed, 0 failed, 0 errored, 1 skipped · mean score 0\.5 ± 0\.707 sd \(n=2\) ·/,
    );
    expect(run.stdout).toContain(
      "  trials: 1 case × 2 judged, 1 skipped · pass@1 100% · pass@2 100% · pass^2 100% · at-least-2 100% · per-case score mean 0.5,",
    );
    const report = JSON.parse(await readFile(join(project.dir, "tr.json"), "utf8"));
    expect(report.summary.evals[0]).toMatchObject({ meanScore: 0.5, scoredCases: 2, skipped: 1 });
    const skipped = report.records.find((r: AttemptRecord) => r.verdict === "skipped");
    expect(skipped.score).toMatchObject({ state: "unavailable", earned: 10, max: 10 });
    const [listed] = JSON.parse((await runCli(["runs", "--json"], project.dir)).stdout);
    expect(listed).toMatchObject({ attempts: 3, skipped: 1, meanScore: 0.5, scoredAttempts: 2 });
    expect(listed.perEval[0]).toMatchObject({ meanScore: 0.5, n: 2 });
    // The pass rate's interval counts the one case, not its two judged trials, and says so.
    expect((await runCli(["runs"], project.dir)).stdout).toMatch(
      /tr\s.*finished\s+1\s+100\.0% \[20\.7%, 100\.0%\] n=2 \(1 case\)\s/,
    );
    const shown = await runCli(["show", "tr"], project.dir);
    expect(shown.stdout).toContain("mean score 0.5 ± 0.707 sd (n=2)");
    expect(shown.stdout).toContain("trials: 1 case × 2 judged, 1 skipped ·");
  });
});
