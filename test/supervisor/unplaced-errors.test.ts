import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/eval/record.js";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";

// Uncaught errors from code outside any attempt, or from an attempt's leftovers, while one
// attempt runs; and errors that a rerun alone does or does not throw again.
const header = `
import { existsSync, writeFileSync } from "node:fs";
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const ok = createScorer({ name: "ok", score: ({ output }) => ({ score: output === undefined ? 0 : 1 }) });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const cases = [1, 2, 3, 4, 5].map((i) => ({ id: "c" + i, input: i }));
`;

const files = {
  // A timer of the eval file's top-level code throws while c2 runs alone.
  "evals/toptimer.eval.ts": `${header}
setTimeout(() => { throw new Error("background refresher crashed"); }, 150);
export const s = defineSuite({
  id: "toptimer", cases, concurrency: 1,
  target: async (i) => { await sleep(100); return i; },
  scorers: [ok],
});
`,
  // A timer c3 left behind throws while c4 runs alone.
  "evals/orphan.eval.ts": `${header}
export const s = defineSuite({
  id: "orphan", cases, concurrency: 1,
  target: async (i) => {
    await sleep(50);
    if (i === 3) setTimeout(() => { throw new Error("late timer boom"); }, 20);
    return i * 2;
  },
  scorers: [ok],
});
`,
  // c2 throws from its own timer each time, running alone: the error is c2's.
  "evals/lonethrow.eval.ts": `${header}
export const s = defineSuite({
  id: "lonethrow", cases, concurrency: 1,
  target: async (i) => {
    if (i === 2) setTimeout(() => { throw new Error("c2 throws again"); }, 10);
    await sleep(50);
    return i;
  },
  scorers: [ok],
});
`,
  // c3 throws from a timer while all five run: each runs again alone, and c3 throws again.
  "evals/throwtimer.eval.ts": `${header}
export const s = defineSuite({
  id: "throwtimer", cases,
  target: async (i) => {
    if (i === 3) { setTimeout(() => { throw new Error("boom in timer"); }, 10); await sleep(100); }
    await sleep(50);
    return i * 2;
  },
  scorers: [ok],
});
`,
  // c3 throws on its first run only: no rerun throws it again, so it is the run's.
  "evals/flaky.eval.ts": `${header}
export const s = defineSuite({
  id: "flaky", cases,
  target: async (i) => {
    if (i === 3 && !existsSync("flag")) { writeFileSync("flag", "1"); setTimeout(() => { throw new Error("flaky boom"); }, 10); }
    await sleep(50);
    return i * 2;
  },
  scorers: [ok],
});
`,
  // c2 leaks many rejections at once, on its first run and again alone: all of them are c2's.
  "evals/leaks.eval.ts": `${header}
export const s = defineSuite({
  id: "leaks", cases,
  target: async (i) => {
    if (i === 2) for (let k = 0; k < 200; k++) Promise.reject(new Error("leak " + k));
    await sleep(50);
    return i;
  },
  scorers: [ok],
});
`,
  // A timer of the eval file's top-level code throws 15 times while one slow case runs alone
  // after the other: stderr says ten of those errors and counts the rest.
  "evals/manyrun.eval.ts": `${header}
let thrown = 0;
const timer = setInterval(() => {
  if (++thrown >= 15) clearInterval(timer);
  throw new Error("refresher failed " + thrown);
}, 40);
export const s = defineSuite({
  id: "manyrun", cases: cases.slice(0, 2), concurrency: 1,
  target: async (i) => { await sleep(500); return i; },
  scorers: [ok],
});
`,
};

interface JsonReport {
  records: AttemptRecord[];
  summary: { runErrors?: string[] };
}

describe("uncaught errors placed by running attempts again alone (real CLI)", () => {
  // One project per eval file: a file's top-level timer fires in every eval process that loads it.
  const projects: FixtureProject[] = [];
  afterAll(() => Promise.all(projects.map((p) => p.cleanup())));

  const run = async (evalId: keyof typeof files extends `evals/${infer E}.eval.ts` ? E : never) => {
    const file = `evals/${evalId}.eval.ts` as const;
    const project = await makeProject({ [file]: files[file] });
    projects.push(project);
    const cli = await runCli(["run", "--no-store", "--json", "out.json"], project.dir);
    const report = JSON.parse(await readFile(join(project.dir, "out.json"), "utf8")) as JsonReport;
    const verdicts = Object.fromEntries(report.records.map((r) => [r.caseId, r.verdict]));
    return { cli, report, verdicts };
  };
  const allPassed = { c1: "passed", c2: "passed", c3: "passed", c4: "passed", c5: "passed" };

  it("blames no lone attempt for an error from the eval file's top-level timer: it is the run's", async () => {
    const { cli, report, verdicts } = await run("toptimer");
    expect(verdicts).toEqual(allPassed);
    expect(report.summary.runErrors).toHaveLength(1);
    expect(report.summary.runErrors?.[0]).toMatch(/background refresher crashed/);
    // Where it was thrown, said once (the report's line and the console's).
    const place = /toptimer\.eval\.ts:\d+:\d+/g;
    expect(report.summary.runErrors?.[0]?.match(place)).toHaveLength(1);
    const line = cli.stdout.split("\n").find((l) => l.includes("background refresher crashed"));
    expect(line?.match(place)).toHaveLength(1);
    expect(cli.code).toBe(1);
  }, 60_000);

  it("blames no lone attempt for an error from a timer an earlier attempt left behind", async () => {
    const { report, verdicts } = await run("orphan");
    expect(verdicts).toEqual(allPassed);
    expect(report.summary.runErrors).toHaveLength(1);
    expect(report.summary.runErrors?.[0]).toMatch(/late timer boom/);
  }, 60_000);

  it("still errors a lone attempt that throws the error again when run alone", async () => {
    const { report, verdicts } = await run("lonethrow");
    expect(verdicts).toEqual({ ...allPassed, c2: "errored" });
    const c2 = report.records.find((r) => r.caseId === "c2");
    expect(c2?.error?.message).toMatch(/uncaught exception in user code: c2 throws again/);
    // Its time is until the error (its timer fires 10 ms in), not none.
    expect(c2?.elapsedMs).toBeGreaterThanOrEqual(8);
    expect(report.summary.runErrors ?? []).toEqual([]);
  }, 60_000);

  it("does not also count as the run's an error a rerun then owns", async () => {
    const { cli, report, verdicts } = await run("throwtimer");
    expect(verdicts).toEqual({ ...allPassed, c3: "errored" });
    expect(report.summary.runErrors ?? []).toEqual([]);
    expect(cli.stdout).not.toMatch(/belonged to no case/);
  }, 60_000);

  it("counts none of many errors leaked at once as the run's when a rerun owns them, nor says each", async () => {
    const { cli, report, verdicts } = await run("leaks");
    expect(verdicts).toEqual({ ...allPassed, c2: "errored" });
    const c2 = report.records.find((r) => r.caseId === "c2");
    expect(c2?.error?.message).toMatch(/unhandled rejection in user code: leak 0/);
    expect(report.summary.runErrors ?? []).toEqual([]);
    expect(cli.stdout).not.toMatch(/belonged to no case/);
    expect(cli.stderr.split("\n").filter((l) => l.includes("leak")).length).toBeLessThan(20);
  }, 60_000);

  it("keeps as the run's an error no rerun throws again", async () => {
    const { cli, report, verdicts } = await run("flaky");
    expect(verdicts).toEqual(allPassed);
    expect(report.summary.runErrors).toHaveLength(1);
    expect(report.summary.runErrors?.[0]).toMatch(/flaky boom/);
    expect(cli.code).toBe(1);
  }, 60_000);

  it("says ten of many errors not tied to one case and counts the rest when the run ends", async () => {
    const { cli, report } = await run("manyrun");
    const total = report.summary.runErrors?.length ?? 0;
    expect(total).toBe(15);
    const said = cli.stderr
      .split("\n")
      .filter((l) => /refresher failed \d+ .*\(not tied to one case/.test(l));
    expect(said).toHaveLength(10);
    expect(cli.stderr).toContain(
      `niceeval: ${total - 10} more errors not tied to one case than the 10 said (${total} in all); the report lists every one`,
    );
    expect(cli.code).toBe(1);
  });
});
