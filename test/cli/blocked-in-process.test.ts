import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, readJsonRecords, runCli } from "../support/project.js";

// A target that holds the thread past --timeout: in process (--no-supervise) its limit's timer
// cannot fire until it yields, so it is errored as timed out once it returns, as the supervised
// run (which kills its eval process) errors it, never passed.
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

export const block = defineSuite<string, string, string>({
  id: "block",
  cases: [
    { id: "held", input: "held", expected: "held" },
    { id: "quick", input: "quick", expected: "quick" },
  ],
  target: async (s) => {
    if (s === "held") busy(1500);
    return s;
  },
  scorers: [same],
});
`;

describe("a target that blocks the event loop past --timeout, in process (real CLI)", {
  timeout: 60_000,
}, () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/block.eval.ts": evals });
  });
  afterAll(() => project.cleanup());

  it("is errored as timed out with --no-supervise, saying it held the thread", async () => {
    const run = await runCli(
      ["run", ".", "--no-store", "--timeout", "1000", "--no-supervise", "--json", "r.json"],
      project.dir,
    );
    expect(run.code, run.stderr).toBe(1);
    const records = await readJsonRecords(project.dir, "r.json");
    expect(records.map((r) => [r.caseId, r.verdict])).toEqual([
      ["held", "errored"],
      ["quick", "passed"],
    ]);
    const error = records[0]!.error!;
    expect(error.where).toBe('target of case "held" in eval "block"');
    expect(error.message).toMatch(
      /^the target timed out after 1000 ms: the attempt held the thread past the limit, to \d+ ms, so it could not be stopped earlier \(synchronous code cannot be timed out: a limit stops only code that yields\); make it yield \(await between its steps\), raise --timeout or the eval's timeoutMs, or make it faster$/,
    );
    expect(run.stdout).toContain("! held errored");
  });
});

// The same after the target's (or a scorer's) first await: the part before it is timed as it
// runs, the rest only as it ends. Alone in the process (--concurrency 1), nothing but its own
// code can have held the thread past its limit, so it is errored as timed out, as a supervised
// run errors it.
const afterAwait = `
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

const slow = createScorer<string, string>({
  name: "slow",
  score: async ({ output, expected }) => {
    await Promise.resolve();
    busy(900);
    return { score: output === expected ? 1 : 0 };
  },
});

export const target = defineSuite<string, string, string>({
  id: "target",
  cases: [
    { id: "microtask", input: "microtask", expected: "microtask" },
    { id: "timer", input: "timer", expected: "timer" },
    { id: "quick", input: "quick", expected: "quick" },
  ],
  target: async (s) => {
    if (s === "microtask") {
      await Promise.resolve();
      busy(900);
    }
    if (s === "timer") {
      await new Promise((resolve) => setTimeout(resolve, 10));
      busy(900);
    }
    return s;
  },
  scorers: [same],
});

export const scorer = defineSuite<string, string, string>({
  id: "scorer",
  cases: [{ id: "s", input: "s", expected: "s" }],
  target: async (s) => s,
  scorers: [same, slow],
});
`;

describe("a target or scorer that blocks the event loop after an await, alone in process (real CLI)", {
  timeout: 60_000,
}, () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/after-await.eval.ts": afterAwait });
  });
  afterAll(() => project.cleanup());

  it("is errored as timed out with --no-supervise --concurrency 1, saying it held the thread", async () => {
    const run = await runCli(
      [
        "run",
        ".",
        "--no-store",
        "--timeout",
        "300",
        "--concurrency",
        "1",
        "--no-supervise",
        "--json",
        "r.json",
      ],
      project.dir,
    );
    expect(run.code, run.stderr).toBe(1);
    const records = await readJsonRecords(project.dir, "r.json");
    expect(records.map((r) => [r.evalId, r.caseId, r.verdict])).toEqual([
      ["target", "microtask", "errored"],
      ["target", "timer", "errored"],
      ["target", "quick", "passed"],
      ["scorer", "s", "errored"],
    ]);
    for (const record of records.slice(0, 2)) {
      expect(record.error!.where).toBe(`target of case "${record.caseId}" in eval "target"`);
      expect(record.error!.message).toMatch(
        /^the target timed out after 300 ms: the attempt held the thread past the limit, to \d+ ms, so it could not be stopped earlier \(synchronous code cannot be timed out: a limit stops only code that yields\); make it yield \(await between its steps\), raise --timeout or the eval's timeoutMs, or make it faster$/,
      );
    }
    const [same, slow] = records[3]!.judgments;
    expect(same!.state).toBe("matched");
    expect(slow!.state).toBe("errored");
    expect(slow!.reason).toMatch(
      /^scorer "slow" timed out after 300 ms: the attempt held the thread past the limit, to \d+ ms, so it could not be stopped earlier/,
    );
    expect(run.stdout).toContain("! microtask errored");
    expect(run.stdout).toContain("! timer errored");
  });
});
