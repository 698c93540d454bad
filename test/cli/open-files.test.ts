import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliPath, type FixtureProject, makeProject, ONE_CASE_EVAL } from "../support/project.js";

// Node reads a module's imports at once: with a low `ulimit -n`, loading niceeval runs out of
// file descriptors. That crashed with a stack; it is a limit to raise, said as such.
describe("a process that may open few files (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({
      "evals/echo.eval.ts": ONE_CASE_EVAL,
    });
  });
  afterAll(() => project.cleanup());

  // Two limits: at 24 the eval process the CLI starts early fails to spawn (an event nothing
  // listened for crashed the CLI) and the CLI's own loading runs out next; at 20 the CLI's
  // loading runs out first.
  it.each([24, 20])("says which limit to raise, and exits 2, at ulimit -n %i", (limit) => {
    const run = spawnSync(
      "bash",
      ["-c", `ulimit -n ${limit} && exec "${process.execPath}" "${cliPath}" run --no-store`],
      { cwd: project.dir, encoding: "utf8", env: { ...process.env, CI: "true" } },
    );
    expect(run.stderr).toMatch(
      new RegExp(
        `^niceeval: too many open files \\(EMFILE: too many open files, open '[^']+'\\): this process may have (at most ${limit}|only a few) files open at once \\(ulimit -n\\), and loading niceeval and the eval files opens many together; raise the limit \\(ulimit -n 4096\\) and run again\n$`,
      ),
    );
    expect(run.status).toBe(2);
  });
});
