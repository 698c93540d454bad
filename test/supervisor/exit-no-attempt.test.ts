import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, readJsonRecords, runCli } from "../support/project.js";

// The eval file's top-level code ends the eval process a second after each one loads it, while
// some case runs: the attempt in flight then passes when run again alone, so the exit is no
// attempt's, and it fails the run as an uncaught error no attempt owns does.
const topLevelExit = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
setTimeout(() => process.exit(0), 1000);
const ok = createScorer({ name: "ok", score: () => ({ score: 1 }) });
export const s = defineSuite({
  id: "toptimer",
  cases: [1, 2, 3, 4, 5, 6, 7, 8].map((i) => ({ id: "c" + i, input: i })),
  target: async (i) => { await new Promise((r) => setTimeout(r, 400)); return i; },
  scorers: [ok],
});
`;

interface Report {
  summary: { ok: boolean; runErrors?: string[] };
}

describe("an exit of the eval process that no attempt in flight ends again alone (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/t.eval.ts": topLevelExit });
  });
  afterAll(() => project.cleanup());

  it("is the run's error, says where process.exit was called, and fails the run", async () => {
    const cli = await runCli(
      ["run", ".", "--no-store", "--concurrency", "1", "--json", "r.json"],
      project.dir,
    );
    const records = await readJsonRecords(project.dir, "r.json");
    // The innocent cases keep passing.
    expect(records.map((r) => `${r.caseId}:${r.verdict}`)).toEqual(
      [1, 2, 3, 4, 5, 6, 7, 8].map((i) => `c${i}:passed`),
    );
    const report = JSON.parse(await readFile(`${project.dir}/r.json`, "utf8")) as Report;
    expect(report.summary.ok).toBe(false);
    const errors = report.summary.runErrors ?? [];
    expect(errors.length).toBeGreaterThan(0);
    for (const error of errors) {
      expect(error).toMatch(
        /the eval process exited with code 0 \(process\.exit called at .*t\.eval\.ts:4:\d+\)\) during toptimer\/c\d: the attempt in flight did not end it again when it ran alone/,
      );
    }
    expect(cli.stdout).toMatch(/errors? in user code belonged to no case \(the run fails\)/);
    expect(cli.stdout).toMatch(/process\.exit called at .*t\.eval\.ts:4/);
    expect(cli.stdout).toMatch(/FAIL/);
    expect(cli.stderr).toMatch(/not tied to one case; the run is marked failed/);
    expect(cli.code).toBe(1);
  }, 90_000);
});
