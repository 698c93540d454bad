import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";
import { evalFileHeader } from "./eval-source.js";

// An eval's own `trials` wins over --trials; the run says so instead of running another count
// of trials than the flag asked for without a word.

const evals = `${evalFileHeader}
export const fixed = defineSuite<string, string>({
  id: "fixed",
  trials: 2,
  cases: [{ id: "a", input: "a", expected: "a" }],
  target: (input) => input,
  scorers: [same],
});
export const free = defineSuite<string, string>({
  id: "free",
  cases: [{ id: "b", input: "b", expected: "b" }],
  target: (input) => input,
  scorers: [same],
});
`;

describe("--trials and an eval's own trials (real CLI)", { timeout: 60_000 }, () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/trials.eval.ts": evals });
  });
  afterAll(() => project.cleanup());

  it("names the evals the flag does not apply to, and runs each with its count", async () => {
    const run = await runCli(["run", "--no-store", "--trials", "3"], project.dir);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      `niceeval: --trials 3 does not apply to eval "fixed" (2): an eval's own trials option wins over the flag`,
    );
    expect(run.stderr).not.toContain('"free"');
    expect(run.stdout).toContain("trials: 1 case × 2 ·");
    expect(run.stdout).toContain("trials: 1 case × 3 ·");
  });

  it("says nothing when the counts agree or the flag is not given", async () => {
    for (const args of [["--trials", "2"], []]) {
      const run = await runCli(["run", "--no-store", ...args], project.dir);
      expect(run.code).toBe(0);
      expect(run.stderr).not.toContain("does not apply");
    }
  });

  it("a --retry-errors or --resume of a run started without --trials says nothing either", async () => {
    const first = await runCli(["run", "--store", "t.sqlite", "--name", "t"], project.dir);
    expect(first.code).toBe(0);
    const again = await runCli(["run", "--retry-errors", "t", "--store", "t.sqlite"], project.dir);
    expect(again.stderr).not.toContain("does not apply");
    // A run started with the flag keeps it, and names the evals it does not apply to again.
    await runCli(["run", "--store", "t.sqlite", "--name", "t3", "--trials", "3"], project.dir);
    const with3 = await runCli(["run", "--retry-errors", "t3", "--store", "t.sqlite"], project.dir);
    expect(with3.stderr).toContain('--trials 3 does not apply to eval "fixed" (2)');
  });
});
