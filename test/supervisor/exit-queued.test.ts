import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, readJsonRecords, runCli } from "../support/project.js";

const CASES = 200;

// Every case but the last returns 100 KB at once: their records leave in batches far larger than
// the IPC pipe takes at once, so Node's channel queues them. The last case waits until all the
// others have returned and their records were sent, then ends the eval process, dropping that
// queue (and ends it again when run again alone). Each run of a case appends its number to runs.txt.
const suite = `
import { appendFileSync, existsSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const ok = createScorer({ name: "ok", score: () => ({ score: 1 }) });
let returned = 0;
const turn = () => new Promise((r) => setImmediate(r));
export const s = defineSuite({
  id: "queued",
  cases: Array.from({ length: ${CASES} }, (_, i) => ({ id: "c" + i, input: i })),
  target: async (i) => {
    appendFileSync("runs.txt", i + "\\n");
    if (i === ${CASES - 1}) {
      // Run again alone, in a new eval process: it ends that one at once.
      if (existsSync("exited")) process.exit(1);
      writeFileSync("exited", "");
      while (returned < ${CASES - 1}) await turn();
      for (let j = 0; j < 10; j++) await turn();
      process.exit(1);
    }
    returned++;
    return randomBytes(50_000).toString("hex");
  },
  scorers: [ok],
});
`;

describe("an exit right after many large records were sent (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/queued.eval.ts": suite });
  });
  afterAll(() => project.cleanup());

  it("keeps the records still queued in the channel: only the case that exits runs again", async () => {
    const cli = await runCli(
      ["run", ".", "--no-store", "--concurrency", String(CASES), "--json", "r.json"],
      project.dir,
    );
    const runs = (await readFile(join(project.dir, "runs.txt"), "utf8")).trim().split("\n");
    const counts = new Map<string, number>();
    for (const run of runs) counts.set(run, (counts.get(run) ?? 0) + 1);
    const twice = [...counts].filter(([, n]) => n > 1).map(([i]) => i);
    expect(twice).toEqual([String(CASES - 1)]);
    expect(counts.size).toBe(CASES);
    const records = await readJsonRecords(project.dir, "r.json");
    const verdicts = records.map((r) => r.verdict);
    expect(verdicts.filter((v) => v === "passed")).toHaveLength(CASES - 1);
    expect(records.find((r) => r.caseId === `c${CASES - 1}`)?.verdict).toBe("errored");
    expect(cli.stderr).toMatch(/running 1 of them again, one at a time/);
  }, 90_000);
});
