import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, readJsonRecords, runCli } from "../support/project.js";
import { blockingSuite } from "./blocking-suite.js";

describe("an attempt that blocks the event loop past its time limit (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/syncloop.eval.ts": blockingSuite });
  });
  afterAll(() => project.cleanup());

  it("is errored as blocking the event loop, with what helps, not as a timeout to raise", async () => {
    const started = performance.now();
    const run = await runCli(
      ["run", "--no-store", "--timeout", "1000", "--concurrency", "1", "--json", "b.json"],
      project.dir,
    );
    const records = await readJsonRecords(project.dir, "b.json");
    expect(records.map((r) => `${r.caseId}:${r.verdict}`)).toEqual([
      "c1:passed",
      "c2:passed",
      "c3:errored",
      "c4:passed",
      "c5:passed",
    ]);
    const message = records[2]?.error?.message ?? "";
    expect(message).toMatch(/the event loop was blocked for \d+ ms by this attempt/);
    expect(message).toMatch(/past its 1000 ms time limit/);
    expect(message).toMatch(/synchronous code cannot be timed out/);
    expect(message).toMatch(/--hang-timeout/);
    expect(message).not.toMatch(/raise --timeout/);
    expect(run.code).toBe(1);
    // Well before --hang-timeout's 60 s.
    expect(performance.now() - started).toBeLessThan(15_000);
  }, 90_000);
});
