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
    expect(message).toMatch(/make it yield \(await between its steps\)$/);
    // Killed at its 1 s limit: --hang-timeout (60 s) cannot stop it sooner, so it is not advised.
    expect(message).not.toMatch(/--hang-timeout/);
    expect(message).not.toMatch(/raise --timeout/);
    expect(run.code).toBe(1);
    // Well before --hang-timeout's 60 s.
    expect(performance.now() - started).toBeLessThan(15_000);
  }, 90_000);
});

// Two evals in one file, so the CLI reads the second eval's cases while the first's attempts
// run: a loop that blocks then is caught past the attempt's limit all the same, not at
// --hang-timeout, and the attempts that were only in flight beside it pass when run again
// instead of being errored by the engine's own limit (c4 and c5 run again after two blocking
// reruns, past --timeout + 1 s from their first start).
const twoEvals = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });
export const busy = defineSuite({
  id: "busy-target",
  cases: [1, 2, 3, 4, 5].map((n) => ({ id: "c" + n, input: n, expected: n })),
  target: async (n) => { if (n === 2 || n === 3) for (;;) {} return n; },
  scorers: [same],
});
export const other = defineSuite({
  id: "other",
  cases: [1, 2, 3].map((n) => ({ id: "o" + n, input: n, expected: n })),
  target: async (n) => n,
  scorers: [same],
});
`;

describe("a blocking attempt beside others and a case read (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/two.eval.ts": twoEvals });
  });
  afterAll(() => project.cleanup());

  it("is caught past its limit, and only it is errored", async () => {
    const started = performance.now();
    const run = await runCli(
      ["run", "--no-store", "--timeout", "1000", "--hang-timeout", "30000", "--json", "t.json"],
      project.dir,
    );
    const records = await readJsonRecords(project.dir, "t.json");
    expect(records.map((r) => `${r.caseId}:${r.verdict}`)).toEqual([
      "c1:passed",
      "c2:errored",
      "c3:errored",
      "c4:passed",
      "c5:passed",
      "o1:passed",
      "o2:passed",
      "o3:passed",
    ]);
    expect(records[1]?.error?.message).toMatch(
      /blocked past this attempt's 1000 ms time limit while it ran with others/,
    );
    expect(records[1]?.error?.message).not.toMatch(/--hang-timeout/);
    expect(run.stderr).not.toMatch(/no heartbeat/);
    expect(run.code).toBe(1);
    // Well before --hang-timeout's 30 s.
    expect(performance.now() - started).toBeLessThan(20_000);
  }, 90_000);
});

// A loop in an eval whose own time limit is long: only --hang-timeout catches it. The attempts of
// another eval in flight beside it, under --timeout 1000, run again and pass: the CLI does not
// time them out (at --timeout + 1 s from their first start) while the eval process is stuck.
const longLimit = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });
export const stuck = defineSuite({
  id: "stuck",
  timeoutMs: 60000,
  cases: [{ id: "loop", input: 0, expected: 0 }],
  target: async () => { await new Promise((r) => setTimeout(r, 100)); for (;;) {} },
  scorers: [same],
});
export const quick = defineSuite({
  id: "quick",
  timeoutMs: 1000,
  cases: [1, 2, 3].map((n) => ({ id: "q" + n, input: n, expected: n })),
  target: async (n) => { await new Promise((r) => setTimeout(r, 200)); return n; },
  scorers: [same],
});
`;

describe("attempts in flight while a loop holds the eval process for --hang-timeout (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/long.eval.ts": longLimit });
  });
  afterAll(() => project.cleanup());

  it("run again and pass, and the loop is errored as a hang", async () => {
    const run = await runCli(
      ["run", "--no-store", "--timeout", "1000", "--hang-timeout", "3000", "--json", "l.json"],
      project.dir,
    );
    const records = await readJsonRecords(project.dir, "l.json");
    expect(records.map((r) => `${r.caseId}:${r.verdict}`)).toEqual([
      "loop:errored",
      "q1:passed",
      "q2:passed",
      "q3:passed",
    ]);
    expect(records[0]?.error?.message).toMatch(/blocked|heartbeat/);
    expect(run.code).toBe(1);
  }, 90_000);
});

// An attempt in flight beside one that blocks the loop past its limit runs again alone with its
// whole limit: its own synchronous work within it (600 ms of a 2 s limit) passes, while the one
// that blocks again past its limit is errored.
const besideBlocked = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
export const t = defineSuite({
  id: "innocent",
  cases: [{ id: "spin", input: 1 }, { id: "sync600", input: 2 }],
  target: async (x) => {
    if (x === 2) { const end = Date.now() + 600; while (Date.now() < end) {} return x; }
    for (;;) {}
  },
  scorers: [createScorer({ name: "ok", score: () => ({ score: 1 }) })],
});
`;

describe("an attempt in flight beside one that blocked the loop past its limit (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/beside.eval.js": besideBlocked });
  });
  afterAll(() => project.cleanup());

  it("runs again alone with its whole limit, and passes", async () => {
    const run = await runCli(
      ["run", "--no-store", "--timeout", "2000", "--json", "r.json"],
      project.dir,
    );
    const records = await readJsonRecords(project.dir, "r.json");
    expect(records.map((r) => `${r.caseId}:${r.verdict}`)).toEqual([
      "spin:errored",
      "sync600:passed",
    ]);
    expect(records[0]?.error?.message).toMatch(/and again for \d+ ms when it ran alone/);
    expect(records[1]?.elapsedMs).toBeGreaterThanOrEqual(590);
    expect(run.code).toBe(1);
  }, 90_000);
});

// Six attempts start together (two trials of three cases); one holds the loop, and the five that
// only wait behind it finish in milliseconds when run again alone: the first notice does not say
// they ran past their time limit, nor list them twice.
const trialsBeside = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
export const t = defineSuite({
  id: "busy-target",
  trials: 2,
  cases: [{ id: "ok1", input: 1 }, { id: "ok2", input: 2 }, { id: "spin", input: 0 }],
  target: async (i) => { if (i === 0) for (;;) {} await new Promise((r) => setTimeout(r, 10)); return i; },
  scorers: [createScorer({ name: "ok", score: () => ({ score: 1 }) })],
});
`;

describe("attempts that only waited behind one that blocked the loop (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/trials.eval.ts": trialsBeside });
  });
  afterAll(() => project.cleanup());

  it("are not said to have run past their time limit", async () => {
    const run = await runCli(
      ["run", ".", "--no-store", "--timeout", "1000", "--json", "t.json"],
      project.dir,
    );
    const records = await readJsonRecords(project.dir, "t.json");
    expect(records.filter((r) => r.verdict === "errored").map((r) => r.caseId)).toEqual([
      "spin",
      "spin",
    ]);
    const notice = run.stderr.split("\n").find((l) => l.includes("starting a new eval process"));
    expect(notice).toMatch(
      /the event loop was blocked for \d+ ms, past the time limits of the 6 attempts in flight/,
    );
    expect(notice).not.toMatch(/ran past/);
    expect(notice?.match(/busy-target\/ok1 \[trial 1\]/g)).toHaveLength(1);
    for (const r of records.filter((r) => r.verdict === "errored"))
      expect(r.error?.message).not.toMatch(/--hang-timeout/);
    expect(run.code).toBe(1);
  }, 90_000);
});
