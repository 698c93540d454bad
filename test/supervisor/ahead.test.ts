import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/eval/record.js";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";

// A supervised run's eval process reads the run's cases itself and runs them ahead of the
// supervisor's engine, which takes the records as it reaches each attempt. These runs check that
// this changes nothing a run reports: every selected attempt runs once, under the same filter,
// shard, trials and concurrency as without supervision, and an eval process that reads other
// cases or evals than the supervisor falls back to being sent each case.

const same = `const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });`;

// Every execution is logged (case and trial); `serial` allows one attempt at a time and says
// when two overlap.
const loggedSuite = `
import { appendFileSync } from "node:fs";
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
${same}
export const many = defineSuite({
  id: "many",
  cases: Array.from({ length: 300 }, (_, i) => ({ id: (i % 3 === 0 ? "keep-" : "drop-") + i, input: i, expected: i })),
  target: async (i, { trial }) => {
    appendFileSync("calls.log", "many/" + i + ":" + (trial ?? 0) + "\\n");
    if (i % 7 === 0) await new Promise((r) => setTimeout(r, 1));
    return i;
  },
  scorers: [same],
});
let running = 0;
export const serial = defineSuite({
  id: "serial",
  concurrency: 1,
  cases: Array.from({ length: 30 }, (_, i) => ({ id: "keep-s" + i, input: i, expected: i })),
  target: async (i, { trial }) => {
    appendFileSync("calls.log", "serial/" + i + ":" + (trial ?? 0) + "\\n");
    running++;
    if (running > 1) appendFileSync("overlap.log", "overlap\\n");
    await new Promise((r) => setTimeout(r, 1));
    running--;
    return i;
  },
  scorers: [same],
});
`;

// Case ids that differ each time the cases are read (the run reads them twice in the eval process:
// for the CLI, and to run them ahead).
const changingSuite = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
${same}
let reads = 0;
export const changing = defineSuite({
  id: "changing",
  cases: function* () {
    reads++;
    for (let i = 0; i < 50; i++) yield { id: reads + "-" + i, input: i, expected: i };
  },
  target: (i) => i,
  scorers: [same],
});
`;

// The eval process started after the first one crashed (in case 5) loads one eval more, before
// the other: not the evals the run has.
const unevenSuite = `
import { appendFileSync, existsSync, writeFileSync } from "node:fs";
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
${same}
export const extra = existsSync("uneven-crashed")
  ? defineSuite({ id: "extra", cases: [{ id: "x", input: 0, expected: 0 }], target: (i) => i, scorers: [same] })
  : undefined;
export const uneven = defineSuite({
  id: "uneven",
  cases: Array.from({ length: 40 }, (_, i) => ({ id: "u" + i, input: i, expected: i })),
  target: (i) => {
    appendFileSync("uneven.log", i + "\\n");
    if (i === 5 && !existsSync("uneven-crashed")) {
      writeFileSync("uneven-crashed", "1");
      process.exit(1);
    }
    return i;
  },
  scorers: [same],
});
`;

// The first eval process exits while it loads the file (the supervisor's own load is fine).
const firstLoadDiesSuite = `
import { existsSync, writeFileSync } from "node:fs";
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
${same}
if (typeof process.send === "function" && !existsSync("loaded-once")) {
  writeFileSync("loaded-once", "1");
  process.kill(process.pid, "SIGKILL");
}
export const late = defineSuite({
  id: "late",
  cases: Array.from({ length: 20 }, (_, i) => ({ id: "l" + i, input: i, expected: i })),
  target: (i) => i,
  scorers: [same],
});
`;

interface JsonReport {
  records: AttemptRecord[];
}

async function records(dir: string, file: string): Promise<AttemptRecord[]> {
  return (JSON.parse(await readFile(join(dir, file), "utf8")) as JsonReport).records;
}

const keys = (list: AttemptRecord[]) =>
  list.map((record) => `${record.evalId}/${record.caseId}:${record.trial ?? 0}`).sort();

describe("a supervised run's eval process runs ahead (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({
      "evals/logged.eval.ts": loggedSuite,
      "changing/changing.eval.ts": changingSuite,
      "uneven/uneven.eval.ts": unevenSuite,
      "late/late.eval.ts": firstLoadDiesSuite,
    });
  });
  afterAll(() => project.cleanup());

  it("runs each selected attempt once, with the engine's filter, trials and concurrency", async () => {
    const args = ["evals", "--filter", "keep", "--trials", "2", "--concurrency", "4"];
    const run = await runCli(["run", ...args, "--no-store", "--json", "a.json"], project.dir);
    expect(run.stderr).not.toMatch(/read other cases/);
    expect(run.code).toBe(0);
    const supervised = await records(project.dir, "a.json");
    // 100 "keep" cases of "many" and 30 of "serial", two trials each.
    expect(supervised).toHaveLength(260);
    expect(supervised.every((record) => record.verdict === "passed")).toBe(true);
    const calls = (await readFile(join(project.dir, "calls.log"), "utf8")).trim().split("\n");
    expect(calls).toHaveLength(260);
    expect(new Set(calls).size).toBe(260);
    await expect(readFile(join(project.dir, "overlap.log"), "utf8")).rejects.toThrow();

    const alone = await runCli(
      ["run", ...args, "--no-store", "--no-supervise", "--json", "b.json"],
      project.dir,
    );
    expect(alone.code).toBe(0);
    expect(keys(supervised)).toEqual(keys(await records(project.dir, "b.json")));
  });

  it("selects the same shard as a run in one process", async () => {
    const run = await runCli(
      ["run", "evals", "--shard", "2/3", "--no-store", "--json", "s.json"],
      project.dir,
    );
    const alone = await runCli(
      ["run", "evals", "--shard", "2/3", "--no-store", "--no-supervise", "--json", "t.json"],
      project.dir,
    );
    expect([run.code, alone.code]).toEqual([0, 0]);
    const sharded = await records(project.dir, "s.json");
    expect(sharded.length).toBeGreaterThan(50);
    expect(sharded.length).toBeLessThan(250);
    expect(keys(sharded)).toEqual(keys(await records(project.dir, "t.json")));
  });

  it("falls back to sending each case when the eval process reads other cases", async () => {
    const run = await runCli(["run", "changing", "--no-store", "--json", "c.json"], project.dir);
    expect(run.stderr).toMatch(
      /the eval process read other cases of eval "changing" than this one did/,
    );
    expect(run.stderr.match(/read other cases/g)).toHaveLength(1);
    expect(run.code).toBe(0);
    const changed = await records(project.dir, "c.json");
    expect(changed).toHaveLength(50);
    expect(new Set(changed.map((record) => record.caseId)).size).toBe(50);
    expect(changed.every((record) => record.verdict === "passed")).toBe(true);
  });

  it("starts another eval process to run ahead when the first one dies while loading", async () => {
    const run = await runCli(["run", "late", "--no-store", "--json", "l.json"], project.dir);
    expect(run.stderr).toMatch(/was killed by SIGKILL while loading late\/late\.eval\.ts/);
    expect(run.code).toBe(0);
    const late = await records(project.dir, "l.json");
    expect(late).toHaveLength(20);
    expect(late.every((record) => record.verdict === "passed")).toBe(true);
  });

  it("goes on with the run's evals when an eval process after a crash loads other evals", async () => {
    const run = await runCli(["run", "uneven", "--no-store", "--json", "u.json"], project.dir);
    expect(run.code).toBe(0);
    const uneven = await records(project.dir, "u.json");
    expect(uneven.map((record) => record.evalId)).toEqual(Array(40).fill("uneven"));
    expect(uneven.every((record) => record.verdict === "passed")).toBe(true);
    const calls = (await readFile(join(project.dir, "uneven.log"), "utf8")).trim().split("\n");
    expect([...new Set(calls)].sort()).toEqual(
      Array.from({ length: 40 }, (_, i) => String(i)).sort(),
    );
  });
});
