import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FixtureProject,
  makeProject,
  readJsonRecords,
  runAndSignal,
} from "../support/project.js";
import { blockingSuite } from "./blocking-suite.js";

describe("a signal while an attempt blocks the eval process (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/syncloop.eval.ts": blockingSuite });
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
