import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/eval/record.js";
import { openSqliteStore } from "../../src/store/index.js";
import { type FixtureProject, makeProject, ONE_CASE_EVAL, runCli } from "../support/project.js";

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
    // What happened, and what to do about it, as a time limit's error says.
    expect(busy.error?.message).toBe(
      "the event loop was blocked for 500 ms (no heartbeat from the eval process, which was killed) during this case; it was running at 2 crashes of the eval process, so it is not run again; make its code yield (await between its steps), or raise --hang-timeout if it must hold the thread longer",
    );
    expect(busy.error?.where).toBe('eval "faults", case "busy-loop"');
    const exit = cases.get("exit-zero")!;
    expect(exit.verdict).toBe("errored");
    expect(exit.error?.message).toMatch(
      /the eval process exited with code 0 \(process\.exit called at .*faults\.eval\.ts:\d+:\d+\)\) during this case/,
    );
    // Its one scorer's point is unavailable, as a target error's would be, not absent.
    expect(exit.score).toMatchObject({ state: "unavailable", max: 1 });
    expect(busy.score).toMatchObject({ state: "unavailable", max: 1 });
    expect(run.stdout).toMatch(/! exit-zero errored · unavailable \(max 1\)/);
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
    expect(run.stdout).toMatch(
      /exited with code 0(?: \(process\.exit called at .*?\)\))? during this case/,
    );
    expect(run.stdout).toMatch(/✓ ok-first passed/);
    expect(run.stdout).toMatch(/✓ ok-last passed/);
  });
});

// Values the code under test hands back that cannot be read plainly, and messages it sends on
// the eval process's own channel: neither may lose a record or stall the run.
const unreadableSuite = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});

export const unreadable = defineSuite({
  id: "unreadable",
  cases: [
    { id: "ok-first", input: "a", expected: "a" },
    { id: "throwing-getter", input: "getter", expected: "x" },
    { id: "polluted-prototype", input: "proto", expected: "proto" },
    { id: "after-pollution", input: "b", expected: "b" },
    { id: "own-ipc-message", input: "ipc", expected: "ipc" },
    { id: "own-ipc-object", input: "ipc-object", expected: "ipc-object" },
    { id: "ok-last", input: "z", expected: "z" },
  ],
  target: async (input) => {
    if (input === "getter") return { get boom() { throw new Error("getter boom"); } };
    if (input === "proto") Object.prototype.polluted = "yes";
    if (input === "ipc") process.send?.("not a message of niceeval");
    if (input === "ipc-object") process.send?.({ hello: "world" });
    return input;
  },
  scorers: [same],
});
`;

describe("supervised runs read whatever the code under test returns or sends (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/unreadable.eval.js": unreadableSuite });
  });
  afterAll(() => project.cleanup());

  for (const mode of [[], ["--no-supervise"]]) {
    const label = mode.length ? ` (${mode[0]})` : "";
    it(`keeps every record, with a marker for a value whose getter throws${label}`, async () => {
      const started = performance.now();
      const run = await runCli(
        ["run", "--json", "report.json", "--store", "store.sqlite", "--timeout", "20000", ...mode],
        project.dir,
      );
      // A lost record would wait for the attempt's timeout.
      expect(performance.now() - started).toBeLessThan(15_000);
      expect(run.stderr).not.toMatch(/uncaught|unhandled|store.*failed/);
      const report = JSON.parse(
        await readFile(join(project.dir, "report.json"), "utf8"),
      ) as JsonReport;
      const cases = new Map(report.records.map((record) => [record.caseId, record]));
      expect([...cases.keys()].sort()).toEqual(
        [
          "after-pollution",
          "ok-first",
          "ok-last",
          "own-ipc-message",
          "own-ipc-object",
          "polluted-prototype",
          "throwing-getter",
        ].sort(),
      );
      for (const id of ["ok-first", "polluted-prototype", "after-pollution", "ok-last"])
        expect({ id, verdict: cases.get(id)?.verdict }).toEqual({ id, verdict: "passed" });
      // Scored as it is (not equal to "x"), and stored with where reading it failed.
      expect(cases.get("throwing-getter")?.verdict).toBe("failed");
      expect(JSON.stringify(cases.get("throwing-getter")?.output)).toContain("getter boom");
      for (const id of ["own-ipc-message", "own-ipc-object"]) {
        const ipc = cases.get(id)!;
        if (mode.length === 0) {
          // The supervisor cannot read it: the process is replaced, the case struck out.
          expect(ipc.verdict).toBe("errored");
          expect(ipc.error?.message).toMatch(
            /the eval process sent a message the supervisor could not read \(.*\) and was killed/,
          );
        } else expect(ipc.verdict).toBe("passed");
      }
      if (mode.length === 0)
        expect(cases.get("own-ipc-object")?.error?.message).toContain(
          'a message it does not know: {"hello":"world"}',
        );

      const store = await openSqliteStore(join(project.dir, "store.sqlite"));
      try {
        const [stored] = await store.listRuns({ limit: 1 });
        expect(stored?.status).toBe("finished");
        expect(stored?.totals.attempts).toBe(7);
        const records: AttemptRecord[] = [];
        for await (const record of store.streamAttempts(stored!.runId)) records.push(record);
        const getter = records.find((r) => r.caseId === "throwing-getter");
        expect(JSON.stringify(getter?.output)).toContain("getter boom");
      } finally {
        await store.close();
      }
    }, 60_000);
  }
});

// Each "replaces-…" (or "adds-…") case assigns to a global or a built-in prototype the engine
// relies on; "dup" and 7 appear twice.
const globalsSuite = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});

export const globals = defineSuite({
  id: "globals",
  concurrency: 1,
  cases: [
    { id: "before", input: "a", expected: "a" },
    { id: "replaces-promise", input: "promise", expected: "promise" },
    { id: "after-promise", input: "b", expected: "b" },
    { id: "replaces-stringify", input: "stringify", expected: "stringify" },
    { id: "after-stringify", input: "c", expected: "c" },
    { id: "replaces-clock", input: "clock", expected: "clock" },
    { id: "replaces-push", input: "push", expected: "push" },
    { id: "replaces-iterator", input: "iterator", expected: "iterator" },
    { id: "adds-then", input: "then", expected: "then" },
    { id: "replaces-map-get", input: "map", expected: "map" },
    { id: "after-prototypes", input: "i", expected: "i" },
    { id: "dup", input: "d", expected: "d" },
    { id: "dup", input: "e", expected: "e" },
    { id: 7, input: "f", expected: "f" },
    { id: "7", input: "g", expected: "g" },
    { id: "last", input: "h", expected: "no" },
  ],
  target: async (input) => {
    if (input === "promise") globalThis.Promise = function () { throw new Error("no promises"); };
    if (input === "stringify") JSON.stringify = () => { throw new Error("hijacked"); };
    if (input === "clock") performance.now = () => -1e9;
    if (input === "push") Array.prototype.push = () => { throw new Error("no push"); };
    if (input === "iterator") Array.prototype[Symbol.iterator] = function* () {};
    if (input === "then")
      Object.defineProperty(Object.prototype, "then", { get: () => (resolve) => resolve(1), configurable: true });
    if (input === "map") Map.prototype.get = () => undefined;
    return input;
  },
  scorers: [same],
});
`;

describe("an attempt that replaces globals or repeats a case id (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/globals.eval.js": globalsSuite });
  });
  afterAll(() => project.cleanup());

  for (const mode of [[], ["--no-supervise"]]) {
    const label = mode.length ? ` (${mode[0]})` : "";
    it(`errors that attempt, puts the globals back, and stores every attempt${label}`, async () => {
      const store = `store${mode.length}.sqlite`;
      const run = await runCli(
        ["run", "--json", "report.json", "--store", store, "--hang-timeout", "5000", ...mode],
        project.dir,
      );
      expect(run.code).toBe(1);
      expect(run.stderr).not.toMatch(/uncaught|unhandled|crashed|store.*failed|reporter failed/);
      const report = JSON.parse(
        await readFile(join(project.dir, "report.json"), "utf8"),
      ) as JsonReport;
      const verdicts = report.records.map((r) => `${r.caseId}:${r.verdict}`);
      expect(verdicts).toEqual([
        "before:passed",
        "replaces-promise:errored",
        "after-promise:passed",
        "replaces-stringify:errored",
        "after-stringify:passed",
        "replaces-clock:errored",
        "replaces-push:errored",
        "replaces-iterator:errored",
        "adds-then:errored",
        "replaces-map-get:errored",
        "after-prototypes:passed",
        "dup:passed",
        "dup (duplicate 2):errored",
        "7:passed",
        "7 (duplicate 2):errored",
        "last:failed",
      ]);
      const byId = new Map(report.records.map((r) => [r.caseId, r]));
      expect(byId.get("replaces-promise")?.error?.message).toContain(
        "the code under test replaced Promise while this attempt ran (or one running beside it); niceeval put the original back",
      );
      expect(byId.get("replaces-stringify")?.error?.message).toContain("replaced JSON.stringify");
      expect(byId.get("replaces-clock")?.error?.message).toContain("replaced performance.now");
      expect(byId.get("replaces-clock")?.elapsedMs).toBeGreaterThanOrEqual(0);
      expect(byId.get("replaces-push")?.error?.message).toContain("replaced Array.prototype.push");
      expect(byId.get("replaces-iterator")?.error?.message).toContain(
        "replaced Array.prototype[Symbol.iterator]",
      );
      expect(byId.get("adds-then")?.error?.message).toContain("replaced Object.prototype.then");
      expect(byId.get("replaces-map-get")?.error?.message).toContain("replaced Map.prototype.get");
      expect(byId.get("dup (duplicate 2)")?.error?.message).toBe(
        'case id "dup" appears twice in eval "globals"; give each case a unique id',
      );

      const opened = await openSqliteStore(join(project.dir, store));
      try {
        const [stored] = await opened.listRuns({ limit: 1 });
        expect(stored?.status).toBe("finished");
        expect(stored?.totals).toMatchObject({ attempts: 16, passed: 6, failed: 1, errored: 9 });
        const kept: string[] = [];
        for await (const record of opened.streamAttempts(stored!.runId))
          kept.push(`${record.caseId}:${record.verdict}`);
        expect(kept.sort()).toEqual([...verdicts].sort());
      } finally {
        await opened.close();
      }
    }, 60_000);
  }
});

describe("an eval process that can never start (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({
      "evals/echo.eval.ts": ONE_CASE_EVAL,
      // Loaded before anything else by every Node process of the run: it ends each eval process
      // (the one with an IPC channel) before that process can say a word, and leaves the CLI be.
      "killer.mjs": 'if (process.send) process.kill(process.pid, "SIGKILL");\n',
    });
  });
  afterAll(() => project.cleanup());

  it("fails the files to load, says it gives up instead of starting another, and exits 1", async () => {
    const run = await runCli(["run", "--no-store"], project.dir, {
      NODE_OPTIONS: `--import ${join(project.dir, "killer.mjs")}`,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/starting a new eval process/);
    expect(run.stderr).toMatch(
      /was killed by SIGKILL while loading the eval files; no eval process could load the eval files, so the run's attempts are errored/,
    );
    // No eval process could say what the file holds: it fails to load, with why.
    expect(run.stdout).toMatch(
      /echo\.eval\.ts: the eval process could not start: the eval process was killed by SIGKILL while loading the eval files/,
    );
  }, 60_000);
});
