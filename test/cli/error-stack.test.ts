import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, readJsonRecords, runCli } from "../support/project.js";

// A shared helper throws for one of its callers: the message names its frame (the first in the
// user's code), and the record keeps the whole stack, mapped to the TypeScript lines, so the
// caller that hit the bug is known: in the JSON report, the store and `show --json`.
const files = {
  "src/parse.ts": `// a helper several code paths share
export function parseReply(text: string): { answer: string } {
  const data = JSON.parse(text);
  if (typeof data.answer !== "string") throw new Error("reply has no answer");
  return data;
}
`,
  "src/agent.ts": `import { parseReply } from "./parse.ts";
export async function planStep(q: string) { return parseReply(\`{"plan":"\${q}"}\`); }
export async function answerStep(q: string) { return parseReply(\`{"answer":"\${q}"}\`); }
export async function runAgent(q: string) {
  await answerStep(q);
  const p = await planStep(q);
  return p.answer;
}
`,
  "evals/agent.eval.ts": `import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
import { parseReply } from "../src/parse.ts";
import { runAgent } from "../src/agent.ts";

function checkReply(output: string) {
  return parseReply(output);
}

export const agent = defineSuite<string, string, string>({
  id: "agent",
  cases: [{ id: "q1", input: "hi", expected: "hi" }],
  target: async (q) => (q === "hi" ? runAgent(q) : q),
  scorers: [createScorer<string, string>({ name: "exact", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) })],
});

export const scored = defineSuite<string, string, string>({
  id: "scored",
  cases: [{ id: "s1", input: "{}", expected: "{}" }],
  target: (q) => q,
  scorers: [createScorer<string, string>({ name: "parses", score: ({ output }) => ({ score: checkReply(output) ? 1 : 0 }) })],
});
`,
};

type Stacked = { error?: { message: string; stack?: string }; judgments: { detail?: unknown }[] };

describe("the stack of what a target or scorer threw (real CLI)", { timeout: 60_000 }, () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject(files);
  });
  afterAll(() => project.cleanup());

  for (const flags of [[], ["--no-supervise"]]) {
    it(`is kept whole in the record, the console naming one frame${flags.length ? " (--no-supervise)" : ""}`, async () => {
      const run = await runCli(
        ["run", ".", "--store", "s.sqlite", "--name", "stack", "--json", "r.json", ...flags],
        project.dir,
      );
      expect(run.code, run.stderr).toBe(1);
      const records = (await readJsonRecords(project.dir, "r.json")) as unknown as Stacked[];
      const target = records[0]!.error!;
      expect(target.message).toMatch(
        /^reply has no answer \(at parseReply \(.*src\/parse\.ts:4:46\)\)$/,
      );
      const frames = target.stack!.split("\n");
      expect(frames[0]).toMatch(/^at parseReply \(.*src\/parse\.ts:4:46\)$/);
      // The caller that hit the bug, which the message alone does not name.
      expect(frames[1]).toMatch(/^at planStep \(.*src\/agent\.ts:2:52\)$/);
      expect(frames.some((frame) => /^at runAgent \(.*src\/agent\.ts:6:\d+\)$/.test(frame))).toBe(
        true,
      );
      // A scorer's stack is its errored judgment's detail.
      const detail = records[1]!.judgments[0]!.detail as { stack: string };
      expect(detail.stack.split("\n").slice(0, 2)).toEqual([
        expect.stringMatching(/^at parseReply \(.*src\/parse\.ts:4:46\)$/),
        expect.stringMatching(/^at checkReply \(.*evals\/agent\.eval\.ts:7:\d+\)$/),
      ]);
      // The console shows the one frame, as before, not the stack.
      expect(run.stdout).toMatch(/reply has no answer \(at parseReply \(.*parse\.ts:4:46\)\)/);
      expect(run.stdout).not.toContain("at planStep");

      const shown = await runCli(["show", "latest", "--store", "s.sqlite", "--json"], project.dir);
      const stored = shown.stdout;
      expect(stored).toContain(JSON.stringify(target.stack));
      expect(stored).toContain(JSON.stringify(detail.stack));
    });
  }
});
