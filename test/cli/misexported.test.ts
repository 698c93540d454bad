import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, ONE_CASE_EVAL, runCli } from "../support/project.js";

// An eval file's exports that look like evals but would not run are named, and the run fails:
// before, a file with one good suite and a definition not given to defineSuite ran the good one
// and passed, the other never run and never mentioned.
const MIX = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
import * as others from "./echo.eval.mjs";
const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });
const cases = [{ id: "a", input: "a", expected: "a" }];
// Written the way the docs of other tools show it: a definition, then the suite made of it.
export const definition = { id: "kept", cases, scorers: [same], target: (x) => x };
export const kept = defineSuite(definition);
export { others };
export const forgotten = { id: "forgotten", cases, scorers: [same], target: () => "wrong" };
export const grouped = { failing: defineSuite({ id: "failing", cases, scorers: [same], target: () => "wrong" }) };
`;

describe("evals exported the wrong way (real CLI)", { timeout: 60_000 }, () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({
      "evals/echo.eval.mjs": ONE_CASE_EVAL,
      "evals/mix.eval.mjs": MIX,
    });
  });
  afterAll(() => project.cleanup());

  it("are each named as a load error, the file's other evals still running: exit 1", async () => {
    const run = await runCli(["run", "evals", "--no-store"], project.dir);
    expect(run.code, run.stderr).toBe(1);
    const out = run.stdout + run.stderr;
    expect(out).toContain(
      'export "forgotten" is a plain object, not an eval; wrap it: export const forgotten = defineSuite({ ... })',
    );
    expect(out).toContain('export "grouped" is an object holding the eval "failing"');
    // The definition of a suite that runs, and a namespace of evals that run from their file.
    expect(out).not.toContain('export "definition"');
    expect(out).not.toContain('export "others"');
    expect(run.stdout).toMatch(/kept suite/);
    expect(run.stdout).toMatch(/echo suite/);
  });
});
