import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, repoRoot, runCli } from "../support/project.js";
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
    const examples = join(repoRoot, "examples/support-review");
    project = await makeProject({
      "evals/dup1.eval.ts": `${evalFileHeader}export const first = ${suite("same")};\nexport const second = ${suite("same")};\nexport const fourth = ${suite("same")};\n`,
      "evals/dup2.eval.ts": `${evalFileHeader}export const third = ${suite("same")};\nexport const list = [${suite("listed")}, ${suite("same")}];\n`,
      "evals/lines.eval.ts": `${evalFileHeader}export const broken = ${suite("line\nbreak")};\nexport const fine = ${suite("fine")};\n`,
      // Seed 001's function derives its eval's id: every eval it makes has the same one.
      "se/support-review.ts": await readFile(join(examples, "support-review.ts"), "utf8"),
      "se/recorded-conversation.ts": await readFile(
        join(examples, "recorded-conversation.ts"),
        "utf8",
      ),
      "se/support.eval.ts": `import { recordedConversation, replay } from "./recorded-conversation.js";
import { createSupportReview } from "./support-review.js";
export const unknown = createSupportReview(replay(recordedConversation)).evaluation;
export const done = createSupportReview(replay(recordedConversation)).evaluation;
export const third = createSupportReview(replay(recordedConversation)).evaluation;
`,
    });
  });
  afterAll(() => project.cleanup());

  it("leave out those evals, naming their exports and the one that has the id, once per id", async () => {
    for (const flags of [[], ["--no-supervise"]]) {
      const run = await runCli(["run", "evals", "--no-store", ...flags], project.dir);
      expect(run.code).toBe(1);
      // The files loaded: their other evals ran.
      expect(run.stdout).not.toContain("failed to load");
      const summary = run.stdout.slice(run.stdout.indexOf("Summary"));
      expect(summary.split("\n").slice(1, 5)).toEqual([
        "  5 evals left out:",
        '    evals/dup1.eval.ts: exports "second" and "fourth" were left out: they have the eval id "same" of export "first" of this file; give each eval a unique id',
        '    evals/dup2.eval.ts: exports "third" and "list[1]" were left out: they have the eval id "same" of export "first" of evals/dup1.eval.ts; give each eval a unique id',
        '    evals/lines.eval.ts: export "broken" was left out: its eval id "line\\nbreak" holds a control character (U+000A); eval ids are shown and stored on one line, so use printable text',
      ]);
      expect(run.stdout).toMatch(/same suite · evals\/dup1\.eval\.ts/);
      expect(run.stdout).toMatch(/listed suite · evals\/dup2\.eval\.ts/);
      expect(run.stdout).toMatch(/fine suite · evals\/lines\.eval\.ts/);
      expect(run.stdout).toContain("3 evals · 3 cases · 3 passed");
    }
  });

  it("say how to give an eval of seed 001's function its own id", async () => {
    const run = await runCli(["run", "se", "--no-store"], project.dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      '  2 evals left out:\n    se/support.eval.ts: exports "done" and "third" were left out: they have the eval id "support-review.support-speech-quality-and-task-completion-efficiency" of export "unknown" of this file; give each eval a unique id: this id is derived from the adapter name "support-review" and the description, the same for every eval one function makes, so give that function an id parameter and pass it to defineScoreEval({ id, … })\n',
    );
  });

  it("are kept with a stored run: show and runs say which evals were left out", async () => {
    const run = await runCli(["run", "evals", "--store", "s.sqlite"], project.dir);
    expect(run.code).toBe(1);
    const shown = await runCli(["show", "latest", "--store", "s.sqlite"], project.dir);
    expect(shown.code).toBe(1);
    expect(shown.stdout).toContain("5 evals left out:");
    expect(shown.stdout).not.toContain("failed to load");
    const runs = await runCli(["runs", "--store", "s.sqlite"], project.dir);
    expect(runs.stdout).toContain("5 evals left out");
  });
});
