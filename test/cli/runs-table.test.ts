import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { displayWidth } from "../../src/display-width.js";
import { type FixtureProject, makeProject, ONE_CASE_EVAL, runCli } from "../support/project.js";

// A run's name holding emoji or wide characters takes two columns for each: the columns after it
// must still line up under their headers.
describe("niceeval runs with a name of wide characters (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/echo.eval.ts": ONE_CASE_EVAL });
  });
  afterAll(() => project.cleanup());

  it("pads the name column by display width, so every row's start time is under its header", async () => {
    for (const name of ["rocket 🚀 評価", "plain"])
      expect((await runCli(["run", "--name", name], project.dir)).code).toBe(0);
    const runs = await runCli(["runs"], project.dir);
    expect(runs.code).toBe(0);
    const [header, ...rows] = runs.stdout.trimEnd().split("\n");
    const column = displayWidth(header!.slice(0, header!.indexOf("started")));
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      const at = row.search(/\d{4}-\d\d-\d\d /);
      expect(displayWidth(row.slice(0, at)), row).toBe(column);
    }
  });
});
