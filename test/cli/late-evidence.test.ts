import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";

// A check made after test(t) settled throws instead of being dropped: a forgotten await must
// never turn a failing gate into a pass. Uncaught, that error fails the run and names the
// attempt, supervised or not. The slow eval keeps the run going until the late check comes.
const evals = `
import { defineAdapter } from "niceeval";
import { atLeast } from "niceeval/expect";

const app = defineAdapter({ name: "s", create: async (ctx) => ({ n: ctx.trial }), assertions: () => ({}) });
export const lateGate = app.defineScoreEval({
  id: "late-gate",
  description: "x",
  async test(t) {
    t.score(1, { weight: 1 }).label("a");
    Promise.resolve()
      .then(() => new Promise((r) => setTimeout(r, 20)))
      .then(() => {
        t.check(t.n, atLeast(100)).gate().label("late gate");
      });
  },
});

const slow = defineAdapter({
  name: "slow",
  create: async () => {
    await new Promise((r) => setTimeout(r, 300));
    return {};
  },
});
export const slowEval = slow.defineScoreEval({ id: "slow", description: "y", test(t) { t.score(1, { weight: 1 }).label("waited"); } });
`;

describe("a check made after the test ended (real CLI)", { timeout: 60_000 }, () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/late.eval.ts": evals });
  });
  afterAll(() => project.cleanup());

  for (const args of [[], ["--no-supervise"]]) {
    it(`fails the run and names the eval and case${args.length ? ` (${args[0]})` : ""}`, async () => {
      const run = await runCli(["run", "--no-store", ...args], project.dir);
      const said =
        't.check(...) in eval "late-gate", case "default" was called after test(t) had already ended';
      expect(run.stdout).toContain(said);
      expect(run.stdout).toMatch(/late\.eval\.ts:\d+:\d+/);
      expect(run.stdout).toMatch(/\nFAIL\n?$/);
      expect(run.stderr).toContain(said);
      // It names its own attempt: the slow eval running then is not run again to find whose it is.
      expect(run.stderr).not.toContain("runs again alone");
      expect(run.stdout).toMatch(/✓ default passed/);
      expect(run.code).toBe(1);
    });
  }
});
