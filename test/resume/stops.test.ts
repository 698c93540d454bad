import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/index.js";
import type { StoredRun } from "../../src/store/types.js";
import {
  type FixtureProject,
  makeProject,
  runAndSignal,
  runCli,
  startCli,
} from "../support/project.js";

// Marker files make the eval file's top-level code wait (slow-load), alpha's third case hang
// (slow-target) or its dataset stop before its fifth case (slow-cases); each prints
// TARGET-STARTED for runAndSignal.
const evals = `
import { existsSync } from "node:fs";
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

if (existsSync("slow-load")) {
  console.error("TARGET-STARTED loading");
  await new Promise((r) => setTimeout(r, 600_000));
}
const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });

export const alpha = defineSuite({
  id: "alpha",
  cases: async function* () {
    for (let i = 0; i < 6; i++) {
      if (i === 4 && existsSync("slow-cases")) {
        console.error("TARGET-STARTED a4");
        await new Promise((r) => setTimeout(r, 600_000));
      }
      yield { id: "a" + i, input: i, expected: i };
    }
  },
  target: async (i) => {
    if (i === 2 && existsSync("slow-target")) {
      console.error("TARGET-STARTED a2");
      await new Promise((r) => setTimeout(r, 600_000));
    }
    return i;
  },
  scorers: [same],
});

export const beta = defineSuite({
  id: "beta",
  cases: Array.from({ length: 4 }, (_, i) => ({ id: "b" + i, input: i, expected: i })),
  target: (i) => i,
  scorers: [same],
});
`;

async function storedRun(dir: string, store: string, runId?: string): Promise<StoredRun> {
  const s = await openSqliteStore(join(dir, store));
  try {
    return (runId ? await s.getRun(runId) : (await s.listRuns({ limit: 1 }))[0]) as StoredRun;
  } finally {
    await s.close();
  }
}

/** The JSON report of a run that ran nothing: valid, empty, cancelled. */
async function expectEmptyReport(dir: string, file: string): Promise<void> {
  const report = JSON.parse(await readFile(join(dir, file), "utf8"));
  expect(report).toMatchObject({ records: [], summary: { cancelled: true, ok: false } });
}

/** Start the CLI and send SIGINT after `afterMs`, calling `meanwhile` 300 ms later. */
function signalAfter(args: readonly string[], cwd: string, afterMs: number, meanwhile: () => void) {
  const { child, ended } = startCli(args, cwd);
  setTimeout(() => {
    child.kill("SIGINT");
    setTimeout(meanwhile, 300);
  }, afterMs);
  return ended;
}

describe("a run or a continuation stopped before or while its eval files load", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/ab.eval.js": evals });
  });
  afterAll(async () => {
    await project.cleanup();
  });

  it("resumes into the whole run: nothing ran, so nothing changed", async () => {
    const dir = project.dir;
    await writeFile(join(dir, "slow-load"), "");
    const stopped = await runAndSignal(["run", "--store", "load.sqlite"], dir, ["SIGINT"]);
    await rm(join(dir, "slow-load"));
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toContain("the eval files were still loading: no case ran");
    const run = await storedRun(dir, "load.sqlite");
    expect(run.status).toBe("interrupted");
    expect(run.evals).toEqual([]);

    const resumed = await runCli(["run", "--resume", "--store", "load.sqlite"], dir);
    expect(resumed.stderr).not.toContain("changed");
    expect(resumed.stderr).toContain(`resuming run ${run.runId.slice(0, 8)}`);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("10 passed");
    const final = await storedRun(dir, "load.sqlite", run.runId);
    expect(final.status).toBe("finished");
    expect(final.evals.map((e) => e.evalId)).toEqual(["alpha", "beta"]);
    expect(final.evals.every((e) => e.datasetHash !== undefined)).toBe(true);
    expect(final.resumedWithChanges).toBeUndefined();
    expect(final.files.map((f) => f.path)).toEqual(["evals/ab.eval.js"]);
  }, 120_000);

  it("holds a signal that comes before the run's guard: the reports are written (exit 130)", async () => {
    const dir = project.dir;
    await writeFile(join(dir, "slow-load"), "");
    await runAndSignal(["run", "--store", "early.sqlite"], dir, ["SIGINT"]);
    await rm(join(dir, "slow-load"));
    const before = await storedRun(dir, "early.sqlite");
    // The store is held by another process while --resume opens it, before the guard exists.
    const holder = new Database(join(dir, "early.sqlite"));
    holder.pragma("journal_mode = DELETE");
    holder.exec("BEGIN EXCLUSIVE");
    const early = await signalAfter(
      ["run", "--resume", "--store", "early.sqlite", "--json", "early.json"],
      dir,
      1000,
      () => {
        holder.exec("ROLLBACK");
        holder.close();
      },
    );
    expect(early.signal).toBeNull();
    expect(early.code).toBe(130);
    expect(early.stderr).toContain("niceeval: SIGINT: no new case starts");
    await expectEmptyReport(dir, "early.json");
    const after = await storedRun(dir, "early.sqlite", before.runId);
    expect(after.status).toBe("interrupted");
    expect(after.resumes).toBeUndefined();
  }, 120_000);

  it("leaves the run as it was, stores no hash of unread datasets, and says what a retry runs", async () => {
    const dir = project.dir;
    const store = ["--store", "mid.sqlite"];
    const ref = await runCli(["run", ...store], dir);
    expect(ref.code).toBe(0);
    const refRun = await storedRun(dir, "mid.sqlite");

    await writeFile(join(dir, "slow-target"), "");
    await writeFile(join(dir, "slow-cases"), "");
    const stopped = await runAndSignal(["run", ...store], dir, ["SIGINT", "SIGTERM"]);
    await rm(join(dir, "slow-target"));
    await rm(join(dir, "slow-cases"));
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toContain("niceeval: SIGTERM, a second signal: stopping");
    const run = await storedRun(dir, "mid.sqlite");
    expect(run.status).toBe("interrupted");
    const id = run.runId.slice(0, 8);
    // Neither eval's cases were all read: a hash of part of them would be a changed dataset.
    expect(run.evals.map((e) => e.datasetHash)).toEqual([undefined, undefined]);
    const compared = await runCli(["compare", refRun.runId, "latest", ...store], dir);
    const said = compared.stdout + compared.stderr;
    expect(said).toContain("interrupted before it finished");
    expect(said).not.toContain("the dataset differs");

    // A signal while --resume or --retry-errors loads: exit 130, a valid report, the run untouched.
    await writeFile(join(dir, "slow-load"), "");
    for (const flag of ["--resume", "--retry-errors"]) {
      const cut = await runAndSignal(
        ["run", flag, id, ...store, "--json", "cut.json", "--force"],
        dir,
        ["SIGINT"],
      );
      expect(cut.stderr).not.toContain("changed");
      expect(cut.stderr).toContain(
        `run ${id} is left in the store as it was; \`niceeval run ${flag} ${id} --store mid.sqlite\` continues it`,
      );
      expect(cut.code).toBe(130);
      await expectEmptyReport(dir, "cut.json");
      const after = await storedRun(dir, "mid.sqlite", run.runId);
      expect(after).toEqual(run);
    }
    await rm(join(dir, "slow-load"));

    const retried = await runCli(["run", "--retry-errors", id, ...store], dir);
    expect(retried.stderr).toMatch(
      new RegExp(
        `retrying the errored attempt of run ${id}; \\d others are kept, and the attempts it never started \\(it stopped before its end\\) run too`,
      ),
    );
    expect(retried.code).toBe(0);
    expect(retried.stdout).toContain("10 passed");
    const final = await storedRun(dir, "mid.sqlite", run.runId);
    expect(final.evals.map((e) => e.datasetHash)).toEqual(refRun.evals.map((e) => e.datasetHash));
  }, 120_000);
});
