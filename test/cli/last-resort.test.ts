import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";

// A target that awaits a promise that never settles, beside cases that end: without --timeout
// the run's last-resort limit (10 minutes, shortened here by NICEEVAL_LAST_RESORT_MS) must error
// that case, supervised or not, instead of leaving the run waiting for good.
const evals = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const ran = createScorer<number, number>({ name: "ran", score: () => ({ score: 1 }) });

export const stuck = defineSuite<number, number>({
  id: "stuck",
  cases: [
    { id: "first", input: 1 },
    { id: "forever", input: 2 },
    { id: "last", input: 3 },
  ],
  target: async (n: number) => {
    if (n === 2) await new Promise(() => {});
    return n;
  },
  scorers: [ran],
});
`;

describe("an attempt that never settles (real CLI)", { timeout: 60_000 }, () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/stuck.eval.ts": evals });
  });
  afterAll(() => project.cleanup());

  for (const flags of [[], ["--no-supervise"]]) {
    it(`is errored at the last-resort limit ${flags.length ? "with --no-supervise" : "supervised"}`, async () => {
      const started = performance.now();
      const run = await runCli(
        ["run", ".", "--no-store", "--json", "r.json", ...flags],
        project.dir,
        { NICEEVAL_LAST_RESORT_MS: "1500" },
      );
      const elapsed = performance.now() - started;
      expect(run.code, run.stderr).toBe(1);
      const { records } = JSON.parse(await readFile(join(project.dir, "r.json"), "utf8")) as {
        records: { caseId: string; verdict: string; error?: { message: string } }[];
      };
      expect(records.map((r) => [r.caseId, r.verdict])).toEqual([
        ["first", "passed"],
        ["forever", "errored"],
        ["last", "passed"],
      ]);
      expect(records[1]!.error!.message).toBe(
        'eval "stuck" crashed on case "forever": the attempt did not settle within the last-resort limit of 1500 ms; set a tighter one with --timeout or the eval\'s timeoutMs',
      );
      // Well before the supervisor's --hang-timeout (60 s) could have had any part in it.
      expect(elapsed).toBeLessThan(30_000);
    });
  }
});

// The limit is the one the process started with: a target that sets the variable (a dotenv file
// loaded with override, a test helper) changes no other attempt's limit.
const setsLimit = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const ran = createScorer<number, number>({ name: "ran", score: () => ({ score: 1 }) });

export const setter = defineSuite<number, number>({
  id: "setter",
  concurrency: 1,
  cases: [
    { id: "first", input: 1 },
    { id: "sets-env", input: 2 },
    { id: "after", input: 3 },
    { id: "last", input: 4 },
  ],
  target: async (n: number) => {
    if (n === 2) process.env.NICEEVAL_LAST_RESORT_MS = "1";
    await new Promise((resolve) => setTimeout(resolve, 30));
    return n;
  },
  scorers: [ran],
});
`;

describe("a target that sets NICEEVAL_LAST_RESORT_MS (real CLI)", { timeout: 60_000 }, () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/setter.eval.ts": setsLimit });
  });
  afterAll(() => project.cleanup());

  for (const flags of [[], ["--no-supervise"]]) {
    it(`changes no attempt's limit ${flags.length ? "with --no-supervise" : "supervised"}`, async () => {
      const run = await runCli(
        ["run", ".", "--no-store", "--json", "r.json", ...flags],
        project.dir,
      );
      const { records } = JSON.parse(await readFile(join(project.dir, "r.json"), "utf8")) as {
        records: { caseId: string; verdict: string; error?: { message: string } }[];
      };
      expect(records.map((r) => [r.caseId, r.verdict, r.error?.message])).toEqual([
        ["first", "passed", undefined],
        ["sets-env", "passed", undefined],
        ["after", "passed", undefined],
        ["last", "passed", undefined],
      ]);
      expect(run.code, run.stderr).toBe(0);
    });
  }
});
