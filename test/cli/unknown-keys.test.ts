import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";
import { evalFileHeader } from "./eval-source.js";

// `niceeval run` compiles TypeScript without checking its types, and an .eval.js file has none:
// a misspelt key of a definition must fail that file's load, not be ignored.
describe("a definition with a key its type does not have (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({
      "evals/gate.eval.ts": `${evalFileHeader}export const typo = defineSuite<string, string>({
  id: "typo",
  cases: [{ id: "c", input: "x", expected: "x" }],
  target: async (input) => input,
  scorers: [same],
  // @ts-expect-error the key is \`gates\`
  gate: ["same"],
});
`,
      "evals/review.eval.js": `import { defineAdapter } from "niceeval";
const desk = defineAdapter({ name: "desk", create: () => ({}) });
export const review = desk.defineScoreEval({ descripton: "Ticket handling", test() {} });
`,
      "evals/fine.eval.ts": `${evalFileHeader}export const fine = defineSuite<string, string>({
  id: "fine",
  cases: [{ id: "c", input: "x", expected: "x" }],
  target: async (input) => input,
  scorers: [same],
});
`,
    });
  });
  afterAll(() => project.cleanup());

  it("fails to load that file, naming it, the function, the key and the one meant", async () => {
    for (const flags of [[], ["--no-supervise"]]) {
      const run = await runCli(["run", "--no-store", ...flags], project.dir);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain("2 files failed to load:");
      expect(run.stdout).toContain(
        'evals/gate.eval.ts: AuthoringError: defineSuite("typo"): unknown key "gate" (did you mean "gates"?); known keys: id, cases, target, scorers, concurrency, threshold, gates, timeoutMs, trials (at ',
      );
      expect(run.stdout).toContain(
        'evals/review.eval.js: AuthoringError: adapter "desk".defineScoreEval: unknown key "descripton" (did you mean "description"?)',
      );
      // The other file still runs; the misspelt suite never does.
      expect(run.stdout).toContain("1 eval · 1 case · 1 passed");
      expect(run.stdout).not.toContain("typo suite");
    }
  });
});
