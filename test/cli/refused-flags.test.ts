import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, ONE_CASE_EVAL, runCli } from "../support/project.js";

// Flags that would repeat a report or be dropped without a word are exit 2 before anything runs.
describe("flags given twice or to no purpose (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/echo.eval.ts": ONE_CASE_EVAL });
  });
  afterAll(() => project.cleanup());

  const refused = async (flags: string[], message: string) => {
    const run = await runCli(["run", "evals", "--no-store", ...flags], project.dir);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stdout).toBe("");
  };

  it("refuses --reporter console or github given twice, which would write the report twice", async () => {
    await refused(
      ["--reporter", "console", "--reporter", "console"],
      "--reporter console is given 2 times; the console report is written once",
    );
    await refused(
      ["--reporter", "github", "--reporter=github"],
      "--reporter github is given 2 times; its annotations and step summary are written once",
    );
  });

  it("refuses a --tag key given two values, and --seed without --baseline", async () => {
    await refused(["--tag", "a=1", "--tag", "a=2"], "--tag a is given twice (a=1 and a=2)");
    await refused(["--seed", "4"], "--seed sets the comparison with a baseline");
  });
});
