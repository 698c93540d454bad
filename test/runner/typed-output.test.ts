import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/eval/record.js";
import { openSqliteStore } from "../../src/store/index.js";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";

// A target that returns a large typed array (an agent's generated image or audio, a Buffer): the
// value cap wrote its head through Object.entries (100 million pairs) and the console's preview
// did too, so a supervised run's eval process was killed as blocked, the case errored as a hang
// of its own code, and an in-process run stalled for minutes. Stored, a typed array is its first
// 10,000 numbers and a count of the rest (json-safe.ts); it is sized and shown as such.
const suite = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

// At most a kilobyte: the large image fails, and the console shows its output.
const small = createScorer({
  name: "small",
  score: ({ output }) => ({ score: output instanceof Uint8Array && output.length <= 1024 ? 1 : 0 }),
});

export const images = defineSuite({
  id: "images",
  concurrency: 1,
  cases: [
    { id: "empty", input: 0 },
    { id: "large", input: 100 * 1024 * 1024 },
    { id: "small", input: 16 },
  ],
  target: (size) => new Uint8Array(size),
  scorers: [small],
});
`;

interface JsonReport {
  records: AttemptRecord[];
}

describe("a target that returns a 100 MB typed array (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/images.eval.js": suite });
  });
  afterAll(() => project.cleanup());

  for (const mode of [[], ["--no-supervise"]]) {
    const label = mode.length ? ` (${mode[0]})` : "";
    it(`scores it, and reports and stores its first numbers${label}`, async () => {
      const store = `store${mode.length}.sqlite`;
      const json = `report${mode.length}.json`;
      const run = await runCli(
        ["run", "--json", json, "--store", store, "--hang-timeout", "5000", ...mode],
        project.dir,
      );
      expect(run.stderr).not.toMatch(/blocked|crashed|killed/);
      expect(run.stdout).toMatch(/output: +\[0,0,0,0,/);
      const report = JSON.parse(await readFile(join(project.dir, json), "utf8")) as JsonReport;
      expect(report.records.map((r) => `${r.caseId}:${r.verdict}`)).toEqual([
        "empty:passed",
        "large:failed",
        "small:passed",
      ]);
      const large = report.records[1]?.output as unknown[];
      expect(large).toHaveLength(10_001);
      expect(large.at(-1)).toBe("[unserialisable: 104847600 more items of Uint8Array]");
      const opened = await openSqliteStore(join(project.dir, store));
      try {
        const [stored] = await opened.listRuns({ limit: 1 });
        expect(stored?.totals).toMatchObject({ attempts: 3, passed: 2, failed: 1 });
      } finally {
        await opened.close();
      }
    }, 90_000);
  }
});
