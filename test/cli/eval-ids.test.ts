import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";
import { evalFileHeader } from "./eval-source.js";

// Eval ids that cannot be used: taken twice, in one file or in two, or holding a line break.
const suite = (id: string) => `defineSuite<string, string>({
  id: ${JSON.stringify(id)},
  cases: [{ id: "c", input: "x", expected: "x" }],
  target: async (input) => input,
  scorers: [same],
})`;

describe("eval ids that cannot be used (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({
      "evals/dup1.eval.ts": `${evalFileHeader}export const first = ${suite("same")};\nexport const second = ${suite("same")};\nexport const fourth = ${suite("same")};\n`,
      "evals/dup2.eval.ts": `${evalFileHeader}export const third = ${suite("same")};\n`,
      "evals/lines.eval.ts": `${evalFileHeader}export const broken = ${suite("line\nbreak")};\nexport const fine = ${suite("fine")};\n`,
    });
  });
  afterAll(() => project.cleanup());

  it("are load errors that say which eval and why, counted once per file", async () => {
    const run = await runCli(["run", "--no-store"], project.dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("3 files failed to load:");
    expect(run.stdout).toContain(
      'evals/dup1.eval.ts: eval id "same" is already used by another eval of this file',
    );
    expect(run.stdout).toContain(
      'evals/dup2.eval.ts: eval id "same" is already used by evals/dup1.eval.ts',
    );
    expect(run.stdout).toContain(
      'evals/lines.eval.ts: eval id "line\\nbreak" holds a control character (U+000A)',
    );
    // The other evals of those files run.
    expect(run.stdout).toMatch(/same suite · evals\/dup1\.eval\.ts/);
    expect(run.stdout).toMatch(/fine suite · evals\/lines\.eval\.ts/);
    expect(run.stdout).toContain("2 evals · 2 cases · 2 passed");
  });
});
