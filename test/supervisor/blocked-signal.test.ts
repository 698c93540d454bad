import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FixtureProject,
  makeProject,
  readJsonRecords,
  runAndSignal,
} from "../support/project.js";

// c3 holds the eval process's thread for good as soon as it starts, while the others wait on a
// timer: nothing the eval process could say after that (the cases it read, what it started)
// reaches the CLI.
const blocking = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const ok = createScorer({ name: "ok", score: ({ output }) => ({ score: output === undefined ? 0 : 1 }) });
export const s = defineSuite({
  id: "syncloop",
  cases: [1, 2, 3, 4, 5].map((i) => ({ id: "c" + i, input: i })),
  target: async (i) => {
    if (i === 3) {
      process.stderr.write("TARGET-STARTED\\n");
      for (;;) {}
    }
    await new Promise((r) => setTimeout(r, 50));
    return i * 2;
  },
  scorers: [ok],
});
`;

describe("a signal while an attempt blocks the eval process (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/syncloop.eval.ts": blocking });
  });
  afterAll(() => project.cleanup());

  it("records the blocked attempt as cut off when the grace ends, and exits promptly", async () => {
    const started = performance.now();
    const run = await runAndSignal(
      ["run", "--no-store", "--grace", "1000", "--json", "s.json"],
      project.dir,
      ["SIGINT"],
    );
    const elapsed = performance.now() - started;
    expect(run.code).toBe(130);
    const records = await readJsonRecords(project.dir, "s.json");
    const c3 = records.find((r) => r.caseId === "c3");
    expect(c3?.verdict).toBe("errored");
    expect(c3?.error?.message).toMatch(
      /interrupted by SIGINT: the attempt did not finish within the 1 s grace period/,
    );
    // The attempts that started beside it are kept too (they never finished: cut off).
    expect(records.map((r) => r.caseId)).toEqual(expect.arrayContaining(["c1", "c2", "c3"]));
    // The grace period, not a wait for the blocked eval process to close.
    expect(elapsed).toBeLessThan(4500);
  }, 60_000);
});
