import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";

// The CLI ends a run only once its eval process has exited: what Node writes after the exit
// listeners (V8 coverage, CPU profiles) and what a slow exit listener of the code under test
// does are not cut off by the CLI's own exit (which ends the eval process's group).
describe("the eval process's exit, at the end of a run (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({
      "evals/slow-exit.eval.js": `import { writeFileSync } from "node:fs";
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
process.on("exit", () => {
  const until = Date.now() + 1500;
  while (Date.now() < until) {}
  writeFileSync(process.env.EXIT_MARK, "written by the eval process's exit listener");
});
const same = createScorer({ name: "same", score: () => ({ score: 1 }) });
export const slowExit = defineSuite({
  id: "slow-exit",
  cases: [{ id: "c1", input: 1, expected: 1 }],
  target: (n) => n,
  scorers: [same],
});
`,
    });
  });
  afterAll(() => project.cleanup());

  it("lets Node write the eval process's coverage, and a slow exit listener finish", async () => {
    const coverage = join(project.dir, "coverage-raw");
    const mark = join(project.dir, "exit-mark.txt");
    const run = await runCli(["run", "--no-store"], project.dir, {
      NODE_V8_COVERAGE: coverage,
      EXIT_MARK: mark,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(mark, "utf8")).toBe("written by the eval process's exit listener");
    // One file from the CLI, one from its eval process.
    const files = readdirSync(coverage).filter((name) => name.endsWith(".json"));
    expect(files.length).toBeGreaterThanOrEqual(2);
    const scripts = files.flatMap(
      (name) =>
        (JSON.parse(readFileSync(join(coverage, name), "utf8")) as { result: { url: string }[] })
          .result,
    );
    expect(scripts.some((script) => script.url.endsWith("/supervisor/child.js"))).toBe(true);
  }, 30_000);
});
