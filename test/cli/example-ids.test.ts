import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, projectOfRepoFiles, repoRoot, runCli } from "../support/project.js";

// The bundled examples run together (`niceeval run examples`): none may take another's eval id,
// which would leave it out of the run.
describe("the bundled examples (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    const files = await readdir(join(repoRoot, "examples"), { recursive: true });
    project = await projectOfRepoFiles(
      files.filter((file) => file.endsWith(".ts")).map((file) => join("examples", file)),
    );
  });
  afterAll(() => project.cleanup());

  it("each have their own eval id, so a run over examples/ leaves none out", async () => {
    const run = await runCli(["run", "examples", "--no-store", "--json", "run.json"], project.dir, {
      ANTHROPIC_API_KEY: "",
    });
    const report = JSON.parse(await readFile(join(project.dir, "run.json"), "utf8")) as {
      summary: { loadErrors: unknown[]; evals: { evalId: string }[] };
    };
    expect(report.summary.loadErrors).toEqual([]);
    const ids = report.summary.evals.map((e) => e.evalId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(run.stdout).not.toContain("left out");
  });
});
