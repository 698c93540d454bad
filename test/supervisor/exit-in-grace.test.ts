import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/eval/record.js";
import { openSqliteStore } from "../../src/store/index.js";
import {
  type FixtureProject,
  makeProject,
  readJsonRecords,
  runCli,
  startCli,
} from "../support/project.js";

// An eval process that ends while the run's stop gives its attempts their grace period: nothing
// may run again alone then. Before, the attempts it was running were run again in a new eval
// process, which refused them as not started: they were recorded as "interrupted by SIGINT before
// the attempt started" with 0 ms, and the exit was put on the run as one that "none of the 2
// attempts in flight ended again when each ran alone", though none had run again.

// Each case says when it starts and waits for the stop; then case "a" calls process.exit 100 ms
// later (before "b" answers, 500 ms after the stop). Under QUICK (a resumed run) each answers at
// once. `cases` is the eval's cases: an array runs ahead, an iterator (read once) does not.
const crashingSuite = (cases: string) => `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });
const rows = ["a", "b", "c", "d", "e", "f"].map((id) => ({ id, input: id, expected: id }));
export const crash = defineSuite({
  id: "crash",
  cases: ${cases},
  target: async (input, { signal }) => {
    console.error("TARGET-STARTED " + input);
    if (process.env.QUICK) return input;
    return await new Promise((resolve) => signal.addEventListener("abort", () => {
      if (input === "a") setTimeout(() => process.exit(3), 100);
      else setTimeout(() => resolve(input), 500);
    }, { once: true }));
  },
  scorers: [same],
});
`;

// Case "a" calls process.exit 200 ms after its first start (once: a file marks it), while "b" is
// in flight; each then runs again alone, waiting for the stop, and answers 50 ms after it.
const exitsOnceSuite = `
import { existsSync, writeFileSync } from "node:fs";
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });
export const crash = defineSuite({
  id: "crash",
  cases: ["a", "b", "c", "d"].map((id) => ({ id, input: id, expected: id })),
  target: async (input, { signal }) => {
    console.error("TARGET-STARTED " + input);
    if (process.env.QUICK) return input;
    if (input === "a" && !existsSync("exited"))
      setTimeout(() => { writeFileSync("exited", ""); process.exit(3); }, 200);
    return await new Promise((resolve) => signal.addEventListener("abort", () => {
      setTimeout(() => resolve(input), 50);
    }, { once: true }));
  },
  scorers: [same],
});
`;

/**
 * Run the CLI and send `signal` 300 ms after `starts` attempts printed TARGET-STARTED (the same
 * signal twice more after 20 s, should the run not end).
 */
async function stopAfterStarts(
  dir: string,
  args: readonly string[],
  starts: number,
  signal: NodeJS.Signals = "SIGINT",
) {
  let sent = false;
  let late: NodeJS.Timeout | undefined;
  const run = startCli(["run", ...args], dir, (stderr, child) => {
    if (sent || (stderr.match(/TARGET-STARTED/g) ?? []).length < starts) return;
    sent = true;
    setTimeout(() => child.kill(signal), 300);
    late = setTimeout(() => {
      child.kill(signal);
      setTimeout(() => child.kill(signal), 200);
    }, 20_000);
  });
  const ended = await run.ended;
  clearTimeout(late);
  return ended;
}

async function storedRecords(dir: string, file: string): Promise<AttemptRecord[]> {
  const store = await openSqliteStore(join(dir, file));
  try {
    const [run] = await store.listRuns();
    const records: AttemptRecord[] = [];
    for await (const record of store.streamAttempts(run!.runId)) records.push(record);
    return records;
  } finally {
    await store.close();
  }
}

const CUT_OFF =
  /^this attempt was in flight when the eval process exited with code 3 \(process\.exit called at .*crash\.eval\.js:\d+:\d+\)\), and the run was stopped \(interrupted by SIGINT\) before it ran again alone, so whether it caused that is not known; it is errored as cut off by the stop, and a resumed run runs it again$/;

/** What no stopped run may say: reruns that did not happen, and the exit put on the run. */
function expectNoRerunClaimed(run: { stdout: string; stderr: string }) {
  expect(run.stderr).not.toMatch(/running \d+ of them again|starting a new eval process/);
  expect(run.stderr).not.toMatch(/when (each|it) ran alone|the exit is the run's/);
  expect(run.stdout).not.toMatch(/belonged to no case|before the attempt started/);
}

describe("an eval process that exits during the grace period after a stop (real CLI)", () => {
  const projects: FixtureProject[] = [];
  afterAll(() => Promise.all(projects.map((p) => p.cleanup())));
  const project = async (source: string) => {
    const made = await makeProject({ "evals/crash.eval.js": source });
    projects.push(made);
    return made.dir;
  };
  let ahead: string;
  let readOnce: string;
  let exitsOnce: string;
  beforeAll(async () => {
    ahead = await project(crashingSuite("rows"));
    readOnce = await project(crashingSuite("rows.values()"));
    exitsOnce = await project(exitsOnceSuite);
  });

  for (const [label, dir] of [
    ["run ahead", () => ahead],
    ["cases read once, not run ahead", () => readOnce],
  ] as const) {
    it(`${label}: errors as cut off the attempts it was running, and --resume runs them`, async () => {
      const args = ["--store", "s.sqlite", "--concurrency", "2", "--json", "out.json"];
      const run = await stopAfterStarts(dir(), args, 2);
      expect(run.code).toBe(130);
      expectNoRerunClaimed(run);
      expect(run.stderr).toMatch(
        /exited with code 3 \(process\.exit called at [^\n]*\) during crash\/a, crash\/b, after the run was stopped: 2 attempts it was running are errored as cut off, not run again alone, so whose exit it was is not known; a resumed run runs them again\n/,
      );
      expect(run.stdout).toMatch(
        /cancelled: 2 attempts cut off by the stop \(errored, left out of the pass rate\) · 4 attempts did not start/,
      );
      const records = await readJsonRecords(dir(), "out.json");
      expect(records.map((r) => r.caseId).sort()).toEqual(["a", "b"]);
      for (const record of records) {
        expect(record.verdict, record.caseId).toBe("errored");
        expect(record.error?.interrupted, record.caseId).toBe(true);
        expect(record.error?.message, record.caseId).toMatch(CUT_OFF);
        // Each ran from its start to the exit: 300 ms to the signal, 100 more to the exit.
        expect(record.elapsedMs, record.caseId).toBeGreaterThanOrEqual(350);
      }
      const stored = await storedRecords(dir(), "s.sqlite");
      expect(stored.map((r) => `${r.caseId}:${r.error?.interrupted}`).sort()).toEqual([
        "a:true",
        "b:true",
      ]);

      const resumed = await runCli(["run", "--resume", "--store", "s.sqlite"], dir(), {
        QUICK: "1",
      });
      expect(resumed.code).toBe(0);
      for (const id of ["a", "b"]) expect(resumed.stderr).toContain(`TARGET-STARTED ${id}\n`);
      const after = await storedRecords(dir(), "s.sqlite");
      expect(after.map((r) => `${r.caseId}:${r.verdict}`).sort()).toEqual(
        ["a", "b", "c", "d", "e", "f"].map((id) => `${id}:passed`),
      );
    }, 60_000);
  }

  it("with trials, names each trial, and errors every one it was running as cut off", async () => {
    const args = ["--no-store", "--trials", "2", "--concurrency", "2", "--json", "out.json"];
    const run = await stopAfterStarts(ahead, args, 2);
    expect(run.code).toBe(130);
    expectNoRerunClaimed(run);
    const records = await readJsonRecords(ahead, "out.json");
    expect(records).toHaveLength(2);
    expect(run.stderr).toMatch(
      /during crash\/a \[trial \d\], crash\/a \[trial \d\], after the run/,
    );
    for (const record of records) {
      expect(record.error?.interrupted).toBe(true);
      // Under --no-store nothing can be resumed: neither says so.
      expect(record.error?.message).toMatch(/it is errored as cut off by the stop$/);
      expect(record.elapsedMs).toBeGreaterThanOrEqual(350);
    }
    expect(run.stderr).not.toMatch(/a resumed run/);
  }, 60_000);

  it("under --no-store with SIGTERM, promises no resume", async () => {
    const args = ["--no-store", "--concurrency", "2", "--json", "out.json"];
    const run = await stopAfterStarts(readOnce, args, 2, "SIGTERM");
    expect(run.code).toBe(143);
    expectNoRerunClaimed(run);
    const records = await readJsonRecords(readOnce, "out.json");
    expect(records.map((r) => r.caseId).sort()).toEqual(["a", "b"]);
    for (const record of records) {
      expect(record.error?.interrupted).toBe(true);
      expect(record.error?.message).toMatch(
        /the run was stopped \(interrupted by SIGTERM\) before it ran again alone, so whether it caused that is not known; it is errored as cut off by the stop$/,
      );
    }
    expect(run.stderr).not.toMatch(/a resumed run/);
  }, 60_000);

  it("an exit before the stop whose attempts the stop kept from running again alone is no one's", async () => {
    // Both were in flight at the exit; the first runs again alone, the stop comes 300 ms into it.
    const args = ["--store", "s.sqlite", "--concurrency", "2", "--json", "out.json"];
    const run = await stopAfterStarts(exitsOnce, args, 3);
    expect(run.code).toBe(130);
    expect(run.stderr).toMatch(/during crash\/a, crash\/b; running 2 of them again, one at a time/);
    expect(run.stdout).not.toMatch(/belonged to no case|before the attempt started/);
    expect(run.stderr).not.toMatch(/when each ran alone|the exit is the run's/);
    expect(run.stderr).toMatch(
      /exited with code 3 \(process\.exit called at [^\n]*\) during crash\/a, crash\/b: the run was stopped before the attempts then in flight had all run again alone, so whose it was is not known and it is not put on the run; those the stop cut off are errored so; a resumed run runs them again\n/,
    );
    const records = await readJsonRecords(exitsOnce, "out.json");
    expect(records.map((r) => r.caseId).sort()).toEqual(["a", "b"]);
    const messages = records.map((r) => r.error?.message ?? "");
    // The one running alone when the stop came was cut off there; the other never ran again.
    expect(messages.filter((m) => /while this attempt ran/.test(m))).toHaveLength(1);
    expect(messages.filter((m) => CUT_OFF.test(m))).toHaveLength(1);
    for (const record of records) expect(record.error?.interrupted).toBe(true);

    const resumed = await runCli(["run", "--resume", "--store", "s.sqlite"], exitsOnce, {
      QUICK: "1",
    });
    expect(resumed.code).toBe(0);
    for (const id of ["a", "b"]) expect(resumed.stderr).toContain(`TARGET-STARTED ${id}\n`);
  }, 60_000);
});
