import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, readJsonRecords, runCli } from "../support/project.js";

// In process (--no-supervise), attempts run side by side on one thread. One that holds it keeps
// the others' timers from firing, so a quick attempt beside it ends long after its limits (its
// --timeout and the last-resort limit a second past it) through no fault of its own: it must keep
// its result. Only an attempt whose own code is seen holding the thread past its limit is timed
// out: its synchronous part before its first await (`prefix`); after an await, with another
// attempt in flight, which of them held it cannot be told in process (the supervised run runs
// each again alone to find out).
const evals = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

function busy(ms: number) {
  const end = Date.now() + ms;
  while (Date.now() < end) {}
}

const same = createScorer<string, string>({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});

export const side = defineSuite<string, string, string>({
  id: "side",
  concurrency: 2,
  cases: [
    { id: "blocker", input: "blocker", expected: "blocker" },
    { id: "quick", input: "quick", expected: "quick" },
  ],
  target: async (s) => {
    if (s === "blocker") {
      await new Promise((resolve) => setTimeout(resolve, 50));
      busy(2500);
      return s;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    return s;
  },
  scorers: [same],
});

export const prefix = defineSuite<string, string, string>({
  id: "prefix",
  concurrency: 2,
  cases: [
    { id: "quick", input: "quick", expected: "quick" },
    { id: "blocker", input: "blocker", expected: "blocker" },
  ],
  target: async (s) => {
    if (s === "blocker") {
      busy(2500);
      return s;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    return s;
  },
  scorers: [same],
});
`;

describe("a quick attempt beside one that blocks the event loop, in process (real CLI)", {
  timeout: 60_000,
}, () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/side.eval.ts": evals });
  });
  afterAll(() => project.cleanup());

  it("keeps the quick attempt's result; the blocker is timed out where its own code is seen to block", async () => {
    const run = await runCli(
      [
        "run",
        ".",
        "--no-store",
        "--no-supervise",
        "--timeout",
        "500",
        "--concurrency",
        "2",
        "--json",
        "r.json",
      ],
      project.dir,
    );
    const records = await readJsonRecords(project.dir, "r.json");
    const verdicts = records.map((r) => [r.evalId, r.caseId, r.verdict, r.error?.message]);
    expect(verdicts).toContainEqual(["side", "quick", "passed", undefined]);
    expect(verdicts).toContainEqual(["prefix", "quick", "passed", undefined]);
    // After an await, beside another attempt: not known to be its own, so it keeps its result.
    expect(verdicts).toContainEqual(["side", "blocker", "passed", undefined]);
    const blocker = records.find((r) => r.evalId === "prefix" && r.caseId === "blocker")!;
    expect(blocker.verdict).toBe("errored");
    expect(blocker.error!.where).toBe('target of case "blocker" in eval "prefix"');
    expect(blocker.error!.message).toMatch(
      /^the target timed out after 500 ms: the attempt held the thread past the limit, to \d+ ms, so it could not be stopped earlier/,
    );
    expect(run.stdout).not.toContain("crashed");
    expect(run.code, run.stderr).toBe(1);
  });
});
