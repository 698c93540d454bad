import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";

// The application's usage (ctx.reportUsage) totalled per eval and per run: the console summary's
// `app:` line, the JSON summary's `app`, the Markdown summary, and `show` of the stored run. An
// attempt that reported nothing is unreported, in no sum; a field an attempt left out is said so.

// Trials 0 and 1 report 3,000 tokens and $0.25 each, trial 2 tokens without a cost, trial 3 nothing.
const paid = `
import { defineAdapter } from "niceeval";
import { equals } from "niceeval/expect";
const agent = defineAdapter({
  name: "agent",
  create: async (ctx) => {
    if (ctx.trial < 2) ctx.reportUsage({ inputTokens: 2000, outputTokens: 1000, costUsd: 0.25 });
    else if (ctx.trial === 2) ctx.reportUsage({ inputTokens: 100, outputTokens: 50 });
    return { answer: "ok" };
  },
  assertions: () => ({}),
});
export const paid = agent.defineScoreEval({
  id: "paid",
  description: "an agent that reports its usage",
  trials: 4,
  test(t) {
    t.check(t.answer, equals("ok")).gate().label("answer");
  },
});
`;

const free = `
import { defineAdapter } from "niceeval";
import { equals } from "niceeval/expect";
const quiet = defineAdapter({ name: "quiet", create: () => ({ answer: "ok" }), assertions: () => ({}) });
export const free = quiet.defineScoreEval({
  id: "free",
  description: "an agent that reports nothing",
  test(t) {
    t.check(t.answer, equals("ok")).gate().label("answer");
  },
});
`;

const runLine =
  "  app: 3 of 5 attempts reported usage (2 unreported) · 4100 in / 2050 out / 6150 total tokens · $0.5 (2 of 3)";

describe("the application's usage totalled (real CLI)", { timeout: 60_000 }, () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/paid.eval.ts": paid, "evals/free.eval.ts": free });
  });
  afterAll(() => project.cleanup());

  it("totals it in the console, the JSON and Markdown summaries, and show", async () => {
    const run = await runCli(
      ["run", "--name", "usage", "--json", "out.json", "--reporter", "markdown=out.md"],
      project.dir,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.split("\n")).toContain(runLine);

    const { summary } = JSON.parse(await readFile(join(project.dir, "out.json"), "utf8"));
    expect(summary.app).toEqual({
      reported: 3,
      unreported: 2,
      inputTokens: 4100,
      outputTokens: 2050,
      totalTokens: 6150,
      costUsd: 0.5,
      missing: { costUsd: 1 },
    });
    const byId = Object.fromEntries(summary.evals.map((e: { evalId: string }) => [e.evalId, e]));
    expect(byId.paid.app).toEqual({ ...summary.app, unreported: 1 });
    // Nothing reported: no sum, never a zero.
    expect(byId.free.app).toEqual({ reported: 0, unreported: 1 });

    const md = await readFile(join(project.dir, "out.md"), "utf8");
    expect(md).toContain(`app usage: ${runLine.slice("  app: ".length)}`);
    expect(md).toMatch(/\| mean score \(95% CI\) \| app usage \|/);
    expect(md).toMatch(
      /\| paid \|.*\| 3 of 4 attempts reported usage \(1 unreported\) · 4100 in \/ 2050 out \/ 6150 total tokens · \$0\.5 \(2 of 3\) \|/,
    );
    expect(md).toMatch(/\| free \|.*\| not reported \|/);

    // The stored run gives the same totals, folded again from its attempts.
    const shown = await runCli(["show", "usage"], project.dir);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout.split("\n")).toContain(runLine);
  });

  it("says nothing of the application's usage when no attempt reported any", async () => {
    const run = await runCli(
      ["run", "evals/free.eval.ts", "--no-store", "--reporter", "markdown=free.md"],
      project.dir,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("  judge: no judge calls");
    expect(run.stdout).not.toContain("app:");
    const md = await readFile(join(project.dir, "free.md"), "utf8");
    expect(md).not.toContain("app usage");
  });
});
