import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, ONE_CASE_EVAL, runCli } from "../support/project.js";

// A file named on the command line is imported as it is, whatever its name: a file that is not
// code niceeval can load (notes, a package.json) is a usage error before anything runs, as a path
// that does not exist is, not a file that failed to load, with Node's words for it.
const RUNS =
  "niceeval runs JavaScript and TypeScript files (.ts, .tsx, .mts, .cts, .js, .mjs, .cjs), and in a folder the *.eval.* ones. Pass eval files or folders.";

describe("a file named on the command line (real CLI)", { timeout: 60_000 }, () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({
      "evals/echo.eval.ts": ONE_CASE_EVAL,
      "checks/smoke.ts": ONE_CASE_EVAL.replaceAll("echo", "smoke"),
      "notes.txt": "what to try next\n",
      "README.md": "# fixture\n",
    });
  });
  afterAll(() => project.cleanup());

  it("that is not code is refused, exit 2, naming it and what niceeval runs, before anything runs", async () => {
    for (const file of ["notes.txt", "package.json", "README.md"]) {
      const store = `${file}.sqlite`;
      const run = await runCli(["run", "evals", file, "--store", store], project.dir);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toBe(`niceeval: cannot run ${file}: ${RUNS}\n`);
      expect(run.stdout).toBe("");
      expect(existsSync(join(project.dir, store))).toBe(false);
    }
  });

  it("that is code not named *.eval.* runs as before", async () => {
    const run = await runCli(["run", "checks/smoke.ts", "--no-store"], project.dir);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/1 eval from 1 file/);
    expect(run.stdout).toMatch(/1 passed/);
  });

  it("all left out by --exclude is refused, exit 2, naming the --exclude, not said to be none found", async () => {
    const run = await runCli(
      ["run", "evals", "--exclude", "evals/echo.eval.ts", "--no-store"],
      project.dir,
    );
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toBe(
      "niceeval: --exclude evals/echo.eval.ts left out the one eval file found in evals (evals/echo.eval.ts), so there is nothing to run. Exclude fewer files or folders.\n",
    );
  });
});
