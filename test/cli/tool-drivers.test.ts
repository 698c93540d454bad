import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";

// New user's report, finding 4: the French text scorers bound with evalScorersProvider, as
// every README example binds, errored on every case with advice about a `candidates` option
// that bindScorer does not have.
describe("the driver a scorer binding names (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({
      "evals/french.eval.ts": `import { bindScorer, defineSuite } from "niceeval";
import { evalScorersProvider, lexiconHitRateTool, textStatsTool } from "niceeval/scorers";
export const fr = defineSuite({
  id: "style-fr",
  cases: [{ id: "resume", input: "Je pense que la réunion s'est bien passée. Nous avons validé le budget prévu." }],
  target: (s: string) => s,
  scorers: [
    bindScorer<string, { text: string }>({ id: "stats", tool: textStatsTool, driver: evalScorersProvider, mapInput: ({ output }) => ({ text: output }) }),
    bindScorer<string, { text: string; lexicon: string[] }>({ id: "lexicon", tool: lexiconHitRateTool, driver: evalScorersProvider, mapInput: ({ output }) => ({ text: output, lexicon: ["budget"] }) }),
  ],
});
`,
      "evals/wrong.eval.ts": `import { bindScorer, defineSuite } from "niceeval";
import { exactMatchTool, styleScorersProvider } from "niceeval/scorers";
export const wrong = defineSuite({
  id: "wrong-driver",
  cases: [{ id: "c", input: "x", expected: "x" }],
  target: (s: string) => s,
  scorers: [
    bindScorer<string, { actual: string; expected: string }>({ id: "exact", tool: exactMatchTool, driver: styleScorersProvider, mapInput: ({ output, expected }) => ({ actual: output, expected: String(expected) }) }),
  ],
});
`,
    });
  });
  afterAll(() => project.cleanup());

  it("runs eval.text-stats and eval.lexicon-hit-rate through evalScorersProvider, and refuses a driver that lacks the tool when the file loads", async () => {
    const run = await runCli(["run", "--no-store"], project.dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("✓ stats (gate · 1 pt) 1/1");
    expect(run.stdout).toContain("✓ lexicon (gate · 1 pt) 1/1");
    expect(run.stdout).toContain("1 eval · 1 case · 1 passed");
    expect(run.stdout).not.toContain("no candidate implements");
    expect(run.stdout).toContain(
      'evals/wrong.eval.ts: AuthoringError: bindScorer("exact"): `driver` niceeval.style-scorers does not implement tool "eval.exact-match"; pass driver: evalScorersProvider (import { evalScorersProvider } from "niceeval/scorers")',
    );
  });
});
