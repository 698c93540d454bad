import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, readJsonRecords, runCli } from "../support/project.js";

// An uncaught error thrown while two attempts run cannot be placed: each runs again alone. The
// first attempts still run in the eval process (nothing can stop them), and "noisy" throws
// again from its first run while "quiet" runs again: that error is not quiet's.
const lateSuite = `
import { appendFileSync } from "node:fs";
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let noisyRuns = 0;

export const late = defineSuite({
  id: "late",
  concurrency: 2,
  cases: [
    { id: "quiet", input: "quiet", expected: "quiet" },
    { id: "noisy", input: "noisy", expected: "noisy" },
  ],
  target: async (input) => {
    if (input === "quiet") {
      // Counts how many attempts run at once, this one included.
      appendFileSync("started.log", "quiet\\n");
      await sleep(600);
      return input;
    }
    noisyRuns++;
    if (noisyRuns === 1) {
      setTimeout(() => { throw new Error("first throw of noisy"); }, 50);
      setTimeout(() => { throw new Error("late throw of noisy's first run"); }, 400);
      await sleep(1500);
    } else {
      setTimeout(() => { throw new Error("noisy again"); }, 10);
      await sleep(100);
    }
    return input;
  },
  scorers: [same],
});

// Here "noisy2"'s first run ends at once but leaves a timer that throws long after, while
// "steady" runs again alone: its code was never followed, so that error is the run's.
let noisy2Runs = 0;
export const leftover = defineSuite({
  id: "leftover",
  concurrency: 2,
  cases: [
    { id: "steady", input: "steady", expected: "steady" },
    { id: "noisy2", input: "noisy2", expected: "noisy2" },
  ],
  target: async (input) => {
    if (input === "steady") {
      await sleep(1500);
      return input;
    }
    noisy2Runs++;
    if (noisy2Runs === 1) {
      setTimeout(() => { throw new Error("first throw of noisy2"); }, 50);
      setTimeout(() => { throw new Error("timer left by noisy2's first run"); }, 2200);
    } else {
      setTimeout(() => { throw new Error("noisy2 again"); }, 10);
    }
    await sleep(100);
    return input;
  },
  scorers: [same],
});

// A capped eval: its attempts never run more than one at a time, even after the error.
let capped = 0;
export const cappedSuite = defineSuite({
  id: "capped",
  concurrency: 1,
  cases: Array.from({ length: 6 }, (_, i) => ({ id: "c" + i, input: i, expected: i })),
  target: async (input) => {
    capped++;
    appendFileSync("capped.log", capped + "\\n");
    await sleep(60);
    capped--;
    return input;
  },
  scorers: [same],
});
`;

describe("an uncaught error no attempt can be told from (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/late.eval.ts": lateSuite });
  });
  afterAll(() => project.cleanup());

  it("blames no attempt run again alone for an error thrown by the first run of another", async () => {
    const run = await runCli(
      ["run", "--no-store", "--json", "late.json", "--filter", "late/"],
      project.dir,
    );
    const records = await readJsonRecords(project.dir, "late.json");
    const byCase = Object.fromEntries(records.map((r) => [r.caseId, r]));
    expect(byCase.quiet?.verdict, JSON.stringify(byCase.quiet?.error)).toBe("passed");
    expect(byCase.noisy?.verdict).toBe("errored");
    expect(byCase.noisy?.error?.message).toMatch(/noisy again/);
    // The late throw is still the run's error: it fails the run, tied to no case.
    expect(run.stderr).toMatch(/late throw of noisy's first run/);
    expect(run.code).toBe(1);
  });

  it("blames no attempt for an error from code a first run left behind after its record came", async () => {
    const run = await runCli(
      ["run", "--no-store", "--json", "leftover.json", "--filter", "leftover/"],
      project.dir,
    );
    const records = await readJsonRecords(project.dir, "leftover.json");
    const byCase = Object.fromEntries(records.map((r) => [r.caseId, r]));
    expect(byCase.steady?.verdict, JSON.stringify(byCase.steady?.error)).toBe("passed");
    expect(byCase.noisy2?.error?.message).toMatch(/noisy2 again/);
    expect(run.stderr).toMatch(/timer left by noisy2's first run/);
    expect(run.code).toBe(1);
  });

  it("keeps an eval's concurrency cap while the first runs of attempts run again end", async () => {
    const run = await runCli(
      [
        "run",
        "--no-store",
        "--json",
        "capped.json",
        "--concurrency",
        "8",
        "--filter",
        "/^(late|capped)\\//",
      ],
      project.dir,
    );
    expect(run.code).toBe(1);
    const records = await readJsonRecords(project.dir, "capped.json");
    const capped = records.filter((r) => r.evalId === "capped");
    expect(capped.map((r) => r.verdict)).toEqual(Array(6).fill("passed"));
    const counts = (await readFile(join(project.dir, "capped.log"), "utf8"))
      .trim()
      .split("\n")
      .map(Number);
    expect(Math.max(...counts)).toBe(1);
  });
});
