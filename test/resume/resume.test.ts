import { existsSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/eval/record.js";
import { openSqliteStore } from "../../src/store/index.js";
import type { StoredRun } from "../../src/store/types.js";
import {
  type FixtureProject,
  makeProject,
  runAndSignal,
  runCli,
  startCli,
} from "../support/project.js";
import { killWhenStored, storedAttempts } from "./support.js";

// 60 cases × 2 trials, slow enough to be killed mid-run; every 7th case fails, every 11th errors.
const suite = (label = "same") => `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({ name: "${label}", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });

export const slow = defineSuite({
  id: "slow",
  concurrency: 4,
  cases: Array.from({ length: 60 }, (_, i) => ({ id: "case-" + i, input: i, expected: i % 7 === 0 ? -1 : i })),
  target: async (i) => {
    await new Promise((r) => setTimeout(r, 40));
    if (i % 11 === 0) throw new Error("boom " + i);
    return i;
  },
  scorers: [same],
});
`;

async function attemptsOf(dir: string, store: string, runId?: string) {
  const s = await openSqliteStore(join(dir, store));
  try {
    const run = (runId ? await s.getRun(runId) : (await s.listRuns({ limit: 1 }))[0]) as StoredRun;
    const records: AttemptRecord[] = [];
    for await (const r of s.streamAttempts(run.runId)) records.push(r);
    return { run, records };
  } finally {
    await s.close();
  }
}

const verdicts = (records: readonly AttemptRecord[]) =>
  records.map((r) => `${r.caseId}/${r.trial ?? 0}:${r.verdict}:${r.score.earned}`);

describe("niceeval run --resume", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/slow.eval.js": suite() });
  });
  afterAll(async () => {
    await project.cleanup();
  });

  it("continues a run SIGKILLed mid-run, again and again, into the uninterrupted run", async () => {
    const dir = project.dir;
    const whole = await runCli(["run", "--trials", "2", "--store", "whole.sqlite"], dir);
    expect(whole.code).toBe(1);
    const expected = await attemptsOf(dir, "whole.sqlite");
    expect(expected.records).toHaveLength(120);

    const stored = [await killWhenStored(["run", "--trials", "2"], dir, "killed.sqlite", 20)];
    expect(stored[0]).toBeLessThan(120);
    const first = await attemptsOf(dir, "killed.sqlite");
    // SIGKILLed: nothing marked it, but its writer is gone, so it counts as crashed.
    expect(first.run.status).toBe("running");
    expect(first.run.writer?.pid).toBeGreaterThan(0);
    // `runs` says so, in its table and its JSON.
    const listed = await runCli(["runs", "--store", "killed.sqlite"], dir);
    expect(listed.stdout.split("\n")[1]).toMatch(/ crashed /);
    const listedJson = await runCli(["runs", "--json", "--store", "killed.sqlite"], dir);
    expect(JSON.parse(listedJson.stdout)[0].status).toBe("crashed");
    const shownKilled = await runCli(["show", "latest", "--store", "killed.sqlite"], dir);
    expect(shownKilled.stdout).toContain(
      `this run did not finish (crashed: its writer is gone): the report holds the attempts it stored; \`niceeval run --resume ${first.run.runId.slice(0, 8)} --store killed.sqlite\` runs the rest`,
    );
    for (const atLeast of [stored[0]! + 25, stored[0]! + 55])
      stored.push(await killWhenStored(["run", "--resume"], dir, "killed.sqlite", atLeast));
    expect(stored[2]!).toBeGreaterThan(stored[0]!);

    const last = await runCli(["run", "--resume", "--store", "killed.sqlite"], dir);
    expect(last.stderr).toContain(`resuming run ${first.run.runId.slice(0, 8)}`);
    expect(last.stderr).toMatch(/\d+ attempts already stored are kept/);
    // Exit code, report totals and stored summaries as if it had never stopped.
    expect(last.code).toBe(whole.code);
    expect(last.stdout).toContain("120 attempts:");
    const final = await attemptsOf(dir, "killed.sqlite", first.run.runId);
    expect(final.run.status).toBe("finished");
    expect(final.run.resumes?.length).toBe(3);
    expect(final.run.totals.attempts).toBe(120);
    expect(new Set(final.records.map((r) => `${r.caseId}/${r.trial ?? 0}`)).size).toBe(120);
    expect(verdicts(final.records)).toEqual(verdicts(expected.records));
    const summary = (run: StoredRun) =>
      run.summaries?.map((s) => ({ ...s, elapsedMs: 0, stats: undefined }));
    expect(summary(final.run)).toEqual(summary(expected.run));
    const tail = (text: string) => text.slice(text.indexOf("Summary")).replace(/time: .*/, "");
    expect(tail(last.stdout)).toEqual(tail(whole.stdout));

    const shown = await runCli(["show", first.run.runId, "--store", "killed.sqlite"], dir);
    const shownWhole = await runCli(["show", expected.run.runId, "--store", "whole.sqlite"], dir);
    // Below the line naming each run, the two reports are one.
    const body = (text: string) =>
      text
        .slice(text.indexOf("\n") + 1)
        .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, "ID")
        .replace(/\d+(\.\d+)? ?m?s\b/g, "T")
        .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, "AT");
    expect(body(shown.stdout)).toEqual(body(shownWhole.stdout));

    const again = await runCli(
      ["run", "--resume", first.run.runId, "--store", "killed.sqlite"],
      dir,
    );
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("finished; there is nothing to resume");
  }, 180_000);

  it("refuses a run whose eval changed, naming it, and --force continues and marks it", async () => {
    const dir = project.dir;
    await killWhenStored(["run"], dir, "changed.sqlite", 8);
    await writeFile(join(dir, "evals/slow.eval.js"), suite("renamed"));
    try {
      const refused = await runCli(["run", "--resume", "--store", "changed.sqlite"], dir);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain("evals changed since it started");
      expect(refused.stderr).toContain("eval slow");
      expect(refused.stderr).toContain("--force");
      const forced = await runCli(["run", "--resume", "--force", "--store", "changed.sqlite"], dir);
      expect(forced.code).toBe(1);
      const { run, records } = await attemptsOf(dir, "changed.sqlite");
      expect(run.status).toBe("finished");
      expect(records).toHaveLength(60);
      expect(run.resumedWithChanges?.join(" ")).toContain("eval slow");
    } finally {
      await writeFile(join(dir, "evals/slow.eval.js"), suite());
    }
  }, 120_000);

  it("is a usage error (exit 2) without a store, with paths, or with the run's own options", async () => {
    const dir = project.dir;
    const none = await runCli(["run", "--resume", "--store", "none.sqlite"], dir);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("no store at");
    const paths = await runCli(
      ["run", "--resume", "latest", "evals", "--store", "none.sqlite"],
      dir,
    );
    expect(paths.code).toBe(2);
    expect(paths.stderr).toContain("give no paths");
    const filter = await runCli(["run", "--resume", "--filter", "x"], dir);
    expect(filter.code).toBe(2);
    expect(filter.stderr).toContain("drop --filter");
  }, 60_000);

  it("runs in the eval process only the attempts not stored, each once", async () => {
    // Each call of the target is a line in the file the test names.
    const counted = await makeProject({
      "evals/count.eval.js": `
import { appendFileSync } from "node:fs";
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

export const count = defineSuite({
  id: "count",
  concurrency: 4,
  cases: Array.from({ length: 40 }, (_, i) => ({ id: "case-" + i, input: i, expected: i })),
  target: async (i) => {
    if (process.env.CALLS_FILE) appendFileSync(process.env.CALLS_FILE, i + "\\n");
    await new Promise((r) => setTimeout(r, 30));
    return i;
  },
  scorers: [createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) })],
});
`,
    });
    try {
      const dir = counted.dir;
      await killWhenStored(["run", "--trials", "2"], dir, "k.sqlite", 20);
      const calls = join(dir, "calls.txt");
      const resumed = await runCli(["run", "--resume", "--store", "k.sqlite"], dir, {
        CALLS_FILE: calls,
      });
      expect(resumed.code).toBe(0);
      const kept = Number(/([\d,]+) attempts already stored are kept/.exec(resumed.stderr)?.[1]);
      expect(kept).toBeGreaterThanOrEqual(20);
      // The eval process skipped every kept attempt and ran each of the others once.
      const ran = (await readFile(calls, "utf8")).trim().split("\n");
      expect(ran).toHaveLength(80 - kept);
      expect(resumed.stderr).not.toContain("read other cases");
      expect(resumed.stdout).toContain("80 attempts:");
      const { records } = await attemptsOf(dir, "k.sqlite");
      expect(new Set(records.map((r) => `${r.caseId}/${r.trial ?? 0}`)).size).toBe(80);
    } finally {
      await counted.cleanup();
    }
  }, 120_000);
});

// As many cases as cases.txt says: the dataset can change between a run and its resume.
const sizedSuite = suite()
  .replace(
    'import { defineSuite } from "niceeval";',
    'import { readFileSync } from "node:fs";\nimport { defineSuite } from "niceeval";',
  )
  .replace("{ length: 60 }", '{ length: Number(readFileSync("cases.txt", "utf8")) }');

describe("niceeval run --resume after the dataset changed", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/slow.eval.js": sizedSuite, "cases.txt": "60" });
  });
  afterAll(async () => {
    await project.cleanup();
  });

  it("says how many stored attempts belong to cases the evals no longer give", async () => {
    const dir = project.dir;
    const stored = await killWhenStored(["run"], dir, "sized.sqlite", 20);
    expect(stored).toBeGreaterThanOrEqual(20);
    // From another folder, the run's eval files are not found: said so, nothing runs.
    const elsewhere = await runCli(
      ["run", "--resume", "--store", join(dir, "sized.sqlite")],
      join(dir, "evals"),
    );
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toMatch(
      /eval files are named from the folder it started in, and evals\/slow\.eval\.js is not found from .*evals\. Run --resume from that folder/,
    );
    await writeFile(join(dir, "cases.txt"), "5");
    const resumed = await runCli(["run", "--resume", "--store", "sized.sqlite"], dir);
    expect(resumed.stderr).toMatch(
      /niceeval: \d+ stored attempts of this run belong to cases its evals no longer give/,
    );
    const unreached = Number(/niceeval: (\d+) stored attempts/.exec(resumed.stderr)![1]);
    expect(unreached).toBe(stored - 5);
  }, 120_000);
});

// A dataset that gives one id twice: the second case is errored as a duplicate, and stored.
const duplicated = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

export const dups = defineSuite({
  id: "dups",
  concurrency: 2,
  cases: Array.from({ length: 16 }, (_, i) => ({ id: i === 1 || i === 2 ? "dup" : "c" + i, input: i })),
  target: async (i) => {
    await new Promise((r) => setTimeout(r, 60));
    return i;
  },
  scorers: [createScorer({ name: "ran", score: () => ({ score: 1 }) })],
});
`;

describe("niceeval run --resume of a dataset with a duplicate id", () => {
  it("reads the duplicate's stored attempt back, without calling it a changed dataset", async () => {
    const project = await makeProject({ "evals/dups.eval.js": duplicated });
    try {
      const stored = await killWhenStored(["run"], project.dir, "dups.sqlite", 4);
      expect(stored).toBeLessThan(16);
      const before = await attemptsOf(project.dir, "dups.sqlite");
      expect(before.records.map((r) => r.caseId)).toContain("dup (duplicate 2)");
      const resumed = await runCli(["run", "--resume", "--store", "dups.sqlite"], project.dir);
      expect(resumed.stderr).not.toMatch(/no longer give/);
      expect(resumed.code).toBe(1);
      const after = await attemptsOf(project.dir, "dups.sqlite");
      const ids = after.records.map((r) => r.caseId);
      expect(ids).toHaveLength(16);
      expect(new Set(ids).size).toBe(16);
      expect(after.records.find((r) => r.caseId === "dup (duplicate 2)")?.verdict).toBe("errored");
    } finally {
      await project.cleanup();
    }
  }, 60_000);
});

describe("niceeval run --resume after an eval file was deleted", () => {
  it("says the file is gone from the folder where the run's other files are, not to move", async () => {
    const project = await makeProject({
      "evals/a.eval.js": duplicated,
      "evals/b.eval.js": duplicated.replace('id: "dups"', 'id: "others"'),
    });
    try {
      await killWhenStored(["run"], project.dir, "gone.sqlite", 2);
      await rm(join(project.dir, "evals/b.eval.js"));
      const resumed = await runCli(["run", "--resume", "--store", "gone.sqlite"], project.dir);
      expect(resumed.code).toBe(2);
      expect(resumed.stderr).toMatch(
        /evals\/b\.eval\.js is not found from .*, where its other eval files are: it was deleted or moved since the run started\. Put it back to continue the run/,
      );
    } finally {
      await project.cleanup();
    }
  }, 60_000);
});

describe("niceeval run --resume of a run whose writer is alive", () => {
  it("is refused, and with --force says the writer still lives and both will run the rest", async () => {
    const project = await makeProject({
      "evals/dups.eval.js": duplicated.replace("setTimeout(r, 60)", "setTimeout(r, 400)"),
    });
    const { child, ended } = startCli(
      ["run", "--concurrency", "1", "--store", "live.sqlite"],
      project.dir,
    );
    try {
      const deadline = Date.now() + 30_000;
      while (storedAttempts(join(project.dir, "live.sqlite")) < 1 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 25));
      const id = (await attemptsOf(project.dir, "live.sqlite")).run.runId.slice(0, 8);
      // Unnamed, the run looked for is a stopped one: the live run is said, not passed over.
      const latest = await runCli(["run", "--resume", "--store", "live.sqlite"], project.dir);
      expect(latest.code).toBe(2);
      expect(latest.stderr).toContain(
        `no interrupted or crashed run in sqlite:${join(project.dir, "live.sqlite")} (run ${id} is still running: pid ${child.pid} on ${hostname()}; a run is continued once it stopped)`,
      );
      const refused = await runCli(["run", "--resume", id, "--store", "live.sqlite"], project.dir);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(
        `is still being written by another process (pid ${child.pid} on ${hostname()})`,
      );
      const forced = startCli(
        ["run", "--resume", id, "--force", "--store", "live.sqlite"],
        project.dir,
      );
      const said = await new Promise<string>((resolve) => {
        let text = "";
        forced.child.stderr!.on("data", (chunk: Buffer) => {
          text += chunk.toString();
          if (text.includes("still a live process")) resolve(text);
        });
        void forced.ended.then(() => resolve(text));
      });
      forced.child.kill("SIGKILL");
      await forced.ended;
      expect(said).toContain(
        `niceeval: --force: the run's writer (pid ${child.pid} on ${hostname()}) is still a live process; if it is still writing this run, both will run its remaining cases`,
      );
    } finally {
      child.kill("SIGKILL");
      await ended;
      await project.cleanup();
    }
  }, 60_000);
});

// Each attempt logs how many of the eval process's attempts were running when it started.
const counted = `
import { appendFileSync } from "node:fs";
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

let running = 0;
export const counted = defineSuite({
  id: "counted",
  cases: Array.from({ length: 24 }, (_, i) => ({ id: "c" + i, input: i })),
  target: async (i) => {
    running++;
    appendFileSync("running.log", running + "\\n");
    if (i === 3) console.error("TARGET-STARTED c3");
    await new Promise((r) => setTimeout(r, 150));
    running--;
    return i;
  },
  scorers: [createScorer({ name: "ran", score: () => ({ score: 1 }) })],
});
`;

describe("a continuation's concurrency, hang timeout, grace and judge cache", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/counted.eval.js": counted });
  });
  afterAll(async () => {
    await project.cleanup();
  });

  it("are the run's own unless given again, and the continuation says so", async () => {
    const dir = project.dir;
    const log = join(dir, "running.log");
    const most = async () =>
      Math.max(...(await readFile(log, "utf8")).trim().split("\n").map(Number));
    const started = await runAndSignal(
      ["run", "--concurrency", "2", "--grace", "0", "--hang-timeout", "20000", "--no-cache"],
      dir,
      ["SIGINT"],
    );
    expect(started.code).toBe(130);
    expect(await most()).toBeLessThanOrEqual(2);
    await writeFile(log, "");
    // Stopped again while it runs: the first run's options still hold.
    const resumed = await runAndSignal(["run", "--resume"], dir, ["SIGINT"]);
    expect(resumed.stdout).toContain("· concurrency 2");
    expect(await most()).toBeLessThanOrEqual(2);
    expect(resumed.stderr).toContain(
      "keeps its own --concurrency 2 --hang-timeout 20000 --grace 0 --no-cache",
    );
    expect(resumed.code).toBe(130);
    // A concurrency given to the continuation is its own.
    await writeFile(log, "");
    const wider = await runCli(["run", "--resume", "--concurrency", "6"], dir);
    expect(wider.stderr).toContain("keeps its own --hang-timeout 20000 --grace 0 --no-cache");
    expect(wider.stderr).not.toContain("--concurrency 2");
    expect(wider.stdout).toContain("· concurrency 6");
    expect(await most()).toBeGreaterThan(2);
    expect(wider.stdout).toContain("24 passed");
    expect(wider.code).toBe(0);
  }, 120_000);
});

describe("two resumes of one stopped run at once", () => {
  it("the one refused says nothing of resuming and leaves no report file, exit 2", async () => {
    const project = await makeProject({ "evals/slow.eval.js": suite() });
    try {
      const dir = project.dir;
      await killWhenStored(["run"], dir, "race.sqlite", 4);
      const id = (await attemptsOf(dir, "race.sqlite")).run.runId.slice(0, 8);
      const resume = (n: number) =>
        startCli(
          [
            "run",
            "--resume",
            id,
            "--store",
            "race.sqlite",
            "--json",
            `r${n}.json`,
            "--reporter",
            `markdown=r${n}.md`,
          ],
          dir,
        ).ended;
      const ends = await Promise.all([resume(1), resume(2)]);
      // One continues the run (exit 1: some of its cases fail); the other finds it taken.
      expect(ends.map((end) => end.code).sort()).toEqual([1, 2]);
      const loser = ends.findIndex((end) => end.code === 2);
      const refused = ends[loser]!;
      expect(refused.stderr).toMatch(
        new RegExp(
          `run ${id} is still being written by another process|no interrupted or crashed run`,
        ),
      );
      expect(refused.stderr).not.toContain("resuming run");
      for (const file of [`r${loser + 1}.json`, `r${loser + 1}.md`])
        expect(existsSync(join(dir, file)), file).toBe(false);
      expect(existsSync(join(dir, `r${2 - loser}.json`))).toBe(true);
    } finally {
      await project.cleanup();
    }
  }, 60_000);
});
