import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/eval/record.js";
import { openSqliteStore } from "../../src/store/index.js";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";

// Each case does one thing user code should not do; the run must survive all of them.
const faultySuite = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});

export const faults = defineSuite({
  id: "faults",
  cases: [
    { id: "ok-first", input: "a", expected: "a" },
    { id: "slow-bystander", input: "slow", expected: "slow" },
    { id: "busy-loop", input: "busy", expected: "busy" },
    { id: "exit-zero", input: "exit", expected: "exit" },
    { id: "stray-rejection", input: "reject", expected: "reject" },
    { id: "timer-throw", input: "timer", expected: "timer" },
    { id: "ok-last", input: "z", expected: "z" },
  ],
  target: async (input) => {
    if (input === "slow") await new Promise((r) => setTimeout(r, 200));
    if (input === "busy") for (;;) {}
    if (input === "exit") process.exit(0);
    if (input === "reject") {
      Promise.reject(new Error("stray promise"));
      await new Promise((r) => setTimeout(r, 100));
    }
    if (input === "timer") {
      setTimeout(() => { throw new Error("thrown in a timer"); }, 1);
      await new Promise((r) => setTimeout(r, 100));
    }
    return input;
  },
  scorers: [same],
});
`;

interface JsonReport {
  records: AttemptRecord[];
}

describe("supervised runs survive faulty user code (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/faults.eval.ts": faultySuite });
  });
  afterAll(() => project.cleanup());

  it("errors each faulty attempt with its cause, reruns bystanders, and stores every attempt", async () => {
    const run = await runCli(
      ["run", "--hang-timeout", "500", "--json", "report.json", "--store", "store.sqlite"],
      project.dir,
    );
    expect(run.code).toBe(1);
    const report = JSON.parse(
      await readFile(join(project.dir, "report.json"), "utf8"),
    ) as JsonReport;
    const cases = new Map(report.records.map((record) => [record.caseId, record]));
    expect(cases.size).toBe(7);
    expect(cases.get("ok-first")?.verdict).toBe("passed");
    expect(cases.get("ok-last")?.verdict).toBe("passed");
    // In flight when another case brought the process down: run again, and it passes.
    expect(cases.get("slow-bystander")?.verdict).toBe("passed");
    const busy = cases.get("busy-loop")!;
    expect(busy.verdict).toBe("errored");
    expect(busy.error?.message).toMatch(/the event loop was blocked for 500 ms/);
    expect(busy.error?.where).toBe('eval "faults", case "busy-loop"');
    const exit = cases.get("exit-zero")!;
    expect(exit.verdict).toBe("errored");
    expect(exit.error?.message).toMatch(/the eval process exited with code 0 during this case/);
    const rejection = cases.get("stray-rejection")!;
    expect(rejection.verdict).toBe("errored");
    expect(rejection.error?.message).toMatch(/unhandled rejection in user code: stray promise/);
    expect(rejection.error?.message).toMatch(/faults\.eval\.ts:\d+/);
    const timer = cases.get("timer-throw")!;
    expect(timer.verdict).toBe("errored");
    expect(timer.error?.message).toMatch(/uncaught exception in user code: thrown in a timer/);
    expect(run.stdout).toMatch(/7 cases · 3 passed .* 0 failed · 4 errored/);
    expect(run.stderr).toMatch(/starting a new eval process/);

    const store = await openSqliteStore(join(project.dir, "store.sqlite"));
    try {
      const [stored] = await store.listRuns();
      expect(stored?.status).toBe("finished");
      const attempts: AttemptRecord[] = [];
      for await (const record of store.streamAttempts(stored!.runId)) attempts.push(record);
      expect(attempts.map((a) => `${a.caseId}:${a.verdict}`).sort()).toEqual(
        [...cases.values()].map((a) => `${a.caseId}:${a.verdict}`).sort(),
      );
    } finally {
      await store.close();
    }
  });

  it("places an uncaught error thrown while several attempts run by running each of them alone", async () => {
    const run = await runCli(
      ["run", "--no-store", "--json", "placed.json", "--filter", "/timer|slow|ok/"],
      project.dir,
    );
    expect(run.code).toBe(1);
    const report = JSON.parse(
      await readFile(join(project.dir, "placed.json"), "utf8"),
    ) as JsonReport;
    const verdicts = Object.fromEntries(report.records.map((r) => [r.caseId, r.verdict]));
    expect(verdicts).toEqual({
      "ok-first": "passed",
      "slow-bystander": "passed",
      "timer-throw": "errored",
      "ok-last": "passed",
    });
    const timer = report.records.find((r) => r.caseId === "timer-throw")!;
    expect(timer.error?.message).toMatch(/uncaught exception in user code: thrown in a timer/);
    expect(run.stderr).toMatch(/attempts were in flight: each runs again alone/);
  });

  it("errors a case whose process exits even at concurrency 1, and runs the rest", async () => {
    const run = await runCli(
      ["run", "--concurrency", "1", "--hang-timeout", "500", "--no-store", "--filter", "/exit|ok/"],
      project.dir,
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/! exit-zero errored/);
    expect(run.stdout).toMatch(/exited with code 0 during this case/);
    expect(run.stdout).toMatch(/✓ ok-first passed/);
    expect(run.stdout).toMatch(/✓ ok-last passed/);
  });
});
