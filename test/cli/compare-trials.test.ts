import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Comparison } from "../../src/compare/types.js";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";
import { cleanEnv, json } from "./store-fixture.js";

// A new user's finding: two runs of one target, each trial passing with chance 0.7, base 1 trial
// and head --trials 3, were "REGRESSION: pass rate fell … McNemar p < 0.0001" (298 cases worse,
// 159 better of 600). McNemar's count of cases whose pass share fell is biased when the runs ran
// other numbers of trials; the gate decides by the permutation test of each case's trials.

/** 200 cases; each trial passes with chance PASS (0.7), drawn from a hash of SEED, case and trial. */
const noisyEval = `import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const pass = Number(process.env.PASS ?? "0.7");
const seed = process.env.SEED ?? "1";
function uniform(text: string): number {
  let h = 2166136261;
  for (const c of text) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0x5bd1e995) >>> 0;
  return ((h ^ (h >>> 15)) >>> 0) / 4294967296;
}
const passed = createScorer<boolean, boolean>({
  name: "passed",
  score: ({ output }) => ({ score: output ? 1 : 0 }),
});
export const noisy = defineSuite<number, boolean>({
  id: "noisy",
  cases: Array.from({ length: 200 }, (_, i) => ({ id: "n" + i, input: i })),
  target: async (i, { trial }) => uniform(seed + "|" + i + "|" + trial) < pass,
  scorers: [passed],
});
`;

describe("compare with other numbers of trials through the real CLI", { timeout: 120_000 }, () => {
  let project: FixtureProject;
  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCli(args, project.dir, { ...cleanEnv, ...env });

  beforeAll(async () => {
    project = await makeProject({ "evals/noisy.eval.ts": noisyEval });
    // The base: 1 trial. Failed cases make a run exit 1, which is not what these tests are about.
    await cli(["run", "evals", "--name", "base", "--quiet"], { SEED: "11" });
    await cli(["run", "evals", "--name", "noise", "--quiet", "--trials", "3"], { SEED: "42" });
  });
  afterAll(() => project.cleanup());

  it("pure noise with 1 trial against 3 is no regression, and the output says which test decided", async () => {
    const compared = await cli(["compare", "base", "noise", "--fail-on-regression"]);
    expect(compared.code).toBe(0);
    expect(compared.stderr).not.toContain("regression:");
    expect(compared.stdout).toContain("no significant regression at alpha = 0.05");
    expect(compared.stdout).toMatch(
      /pass rate 70\.0% → 67\.8% \(-2\.2 pts, n = 200; 95 worse, 59 better; permutation of each case's trials p = [\d.]+, the gate's: McNemar's test needs one judged trial per case in both runs \(here base 1, head 3\)\)/,
    );

    const data = json<Comparison>((await cli(["compare", "base", "noise", "--json"])).stdout);
    const rate = data.overall.passRate!;
    // McNemar's counts, kept, called it a fall: 95 cases worse, 59 better, p = 0.0046.
    expect(rate.test).toMatchObject({ worse: 95, better: 59 });
    expect(rate.test.pValue).toBeLessThan(0.01);
    expect(rate).toMatchObject({
      decidedBy: "permutation",
      judgedTrials: { base: { min: 1, max: 1 }, head: { min: 3, max: 3 } },
    });
    expect(rate.pValue).toBe(rate.permutationTest!.pValue);
    expect(rate.pValue).toBeGreaterThan(0.05);
    expect(data.decision).toMatchObject({ regression: false, passRate: false });
  });

  it("a real fall with trials still fails the gate, named by its test, in the console and Markdown", async () => {
    await cli(["run", "evals", "--name", "fall", "--quiet", "--trials", "3"], {
      SEED: "45",
      PASS: "0.5",
    });
    const compared = await cli(["compare", "base", "fall", "--fail-on-regression"]);
    expect(compared.code).toBe(1);
    expect(compared.stderr).toMatch(
      /niceeval: regression: pass rate fell from 70\.0% to [\d.]+% \(n = 200, permutation of each case's trials p [<=] [\d.]+ < 0\.05\)/,
    );

    const run = await cli(
      [
        "run",
        "evals",
        "--quiet",
        "--trials",
        "3",
        "--baseline",
        "base",
        "--reporter",
        "markdown=compare.md",
      ],
      { SEED: "43" },
    );
    expect(run.stderr).not.toContain("regression:");
    const markdown = await readFile(join(project.dir, "compare.md"), "utf8");
    expect(markdown).toContain("| eval | n | pass rate | pass rate p |");
    expect(markdown).toContain(
      "_Pass rate p: the test the gate decides by, the permutation test of each case's trials where cases ran trials (McNemar's test needs one judged trial per case in both runs (here base 1, head 3))._",
    );
  });
});
