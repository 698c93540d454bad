import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, readJsonRecords, runCli } from "../support/project.js";

// Cases given as an iterator (a generator object, array.values(), a stream) can be read once. A
// supervised run read them twice in the eval process (once to run them ahead, once for the run),
// so each read got part of them and the run passed with thousands of cases missing. Such an eval
// is not run ahead; a crash in it still leaves every case with one record (the next eval process
// loads the file again, with a fresh iterator, and reads on from where the run was).
// The crash is a kill, not a process.exit: an exit with a code of its own that the attempt does
// not bring about again when it runs alone is the run's error (exit 1), unless it came just after
// an attempt ended whose record was kept, and whether one was is timing (queue.test.ts,
// exit-after.test.ts). A kill is put on no one, so the run passes however the timing falls.
const onceSuite = `
import { existsSync, writeFileSync } from "node:fs";
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});
async function* asyncCases(n) {
  for (let i = 0; i < n; i++) yield { id: "g" + i, input: "g" + i, expected: "g" + i };
}
function* syncCases(n) {
  for (let i = 0; i < n; i++) yield { id: "s" + i, input: "s" + i, expected: "s" + i };
}
const rows = Array.from({ length: 5000 }, (_, i) => ({ id: "v" + i, input: "v" + i, expected: "v" + i }));

export const generated = defineSuite({
  id: "generated",
  cases: asyncCases(6000),
  target: async (input) => input,
  scorers: [same],
});
export const synchronous = defineSuite({
  id: "synchronous",
  cases: syncCases(5000),
  target: (input) => {
    // The process dies once, mid-eval.
    if (input === "s2500" && !existsSync("crashed")) {
      writeFileSync("crashed", "");
      process.kill(process.pid, "SIGKILL");
    }
    return input;
  },
  scorers: [same],
});
export const values = defineSuite({
  id: "values",
  cases: rows.values(),
  target: (input) => input,
  scorers: [same],
});
export const listed = defineSuite({ id: "listed", cases: rows, target: (input) => input, scorers: [same] });
// A promise every read awaits: of an iterator, it is read once too.
const loaded = (async () => asyncCases(4500))();
export const promised = defineSuite({ id: "promised", cases: loaded, target: async (input) => input, scorers: [same] });
`;

describe("cases given as an iterator, in a supervised run (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/once.eval.js": onceSuite });
  });
  afterAll(() => project.cleanup());

  it("runs every case once, each eval's own, with no word of a dataset that changed", async () => {
    const run = await runCli(["run", "--no-store", "--json", "report.json"], project.dir);
    expect(run.stderr).not.toContain("read other cases");
    const records = await readJsonRecords(project.dir, "report.json");
    const count = (evalId: string) => {
      const ids = records.filter((r) => r.evalId === evalId).map((r) => r.caseId);
      return { attempts: ids.length, cases: new Set(ids).size };
    };
    expect(count("generated")).toEqual({ attempts: 6000, cases: 6000 });
    expect(count("values")).toEqual({ attempts: 5000, cases: 5000 });
    expect(count("listed")).toEqual({ attempts: 5000, cases: 5000 });
    expect(count("promised")).toEqual({ attempts: 4500, cases: 4500 });
    // The process died once, mid-eval; the case run again alone passed, as every other did.
    expect(count("synchronous")).toEqual({ attempts: 5000, cases: 5000 });
    expect(existsSync(join(project.dir, "crashed"))).toBe(true);
    expect(records.filter((r) => r.verdict !== "passed")).toEqual([]);
    expect(run.code).toBe(0);
  });
});
