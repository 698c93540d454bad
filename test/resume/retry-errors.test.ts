import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/eval/record.js";
import { openSqliteStore } from "../../src/store/index.js";
import type { ReplacedAttempt } from "../../src/store/types.js";
import {
  cliPath,
  type FixtureProject,
  makeProject,
  readJsonRecords,
  runAndSignal,
  runCli,
} from "../support/project.js";

// Cases 0, 5, 10 … error while FLAKY is set; each execution is logged, so a kept attempt is seen not to run.
const suite = `
import { appendFileSync } from "node:fs";
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });

export const flaky = defineSuite({
  id: "flaky",
  cases: Array.from({ length: 20 }, (_, i) => ({ id: "case-" + i, input: i, expected: i })),
  target: (i) => {
    appendFileSync("calls.log", "case-" + i + "\\n");
    if (i % 5 === 0 && process.env.FLAKY === "1") throw new Error("upstream 503");
    return i;
  },
  scorers: [same],
});
`;

describe("niceeval run --retry-errors", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/flaky.eval.js": suite });
  });
  afterAll(async () => {
    await project.cleanup();
  });

  it("runs only the errored attempts again, keeping the others, and keeps the replaced ones as history", async () => {
    const dir = project.dir;
    const first = await runCli(["run"], dir, { FLAKY: "1" });
    expect(first.code).toBe(1);
    const retried = await runCli(["run", "--retry-errors"], dir);
    expect(retried.stderr).toContain("retrying the 4 errored attempts");
    expect(retried.code).toBe(0);
    expect(retried.stdout).toContain("20 passed");
    const calls = (await readFile(join(dir, "calls.log"), "utf8")).trim().split("\n");
    expect(calls.slice(20).sort()).toEqual(["case-0", "case-10", "case-15", "case-5"]);

    const store = await openSqliteStore(join(dir, ".niceeval/niceeval.sqlite"));
    try {
      const runs = await store.listRuns();
      expect(runs).toHaveLength(1);
      const run = runs[0]!;
      expect(run.status).toBe("finished");
      expect(run.totals).toMatchObject({ attempts: 20, passed: 20, errored: 0 });
      expect(run.summaries?.[0]).toMatchObject({ cases: 20, passed: 20, errored: 0 });
      expect(run.resumes?.[0]).toMatchObject({ mode: "retry-errors", kept: 16 });
      const history: ReplacedAttempt[] = [];
      for await (const h of store.attemptHistory(run.runId)) history.push(h);
      expect(history.map((h) => `${h.record.caseId}:${h.record.verdict}`)).toEqual([
        "case-0:errored",
        "case-5:errored",
        "case-10:errored",
        "case-15:errored",
      ]);
      expect(history[0]!.record.error?.message ?? JSON.stringify(history[0]!.record)).toContain(
        "upstream 503",
      );
      const current: AttemptRecord[] = [];
      for await (const r of store.streamAttempts(run.runId)) current.push(r);
      expect(current.map((r) => r.verdict)).toEqual(Array(20).fill("passed"));
    } finally {
      await store.close();
    }
    // Nothing errored any more: a second retry runs nothing and keeps everything.
    const none = await runCli(["run", "--retry-errors"], dir);
    expect(none.stderr).toContain("retrying the 0 errored attempts");
    expect(none.code).toBe(0);
  }, 120_000);

  it("gives the attempts that timed out the time a --timeout of its own allows", async () => {
    const own = await makeProject({
      "evals/slow.eval.js": `import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
export const slow = defineSuite({
  id: "slow",
  cases: [{ id: "fast", input: 10 }, { id: "slow", input: 600 }],
  target: async (ms) => {
    if (ms > 100) console.error("TARGET-STARTED slow");
    await new Promise((r) => setTimeout(r, ms));
    return ms;
  },
  scorers: [createScorer({ name: "ran", score: () => ({ score: 1 }) })],
});
`,
    });
    try {
      const first = await runCli(["run", "--timeout", "200"], own.dir);
      expect(first.stdout).toContain(
        "the target timed out after 200 ms; raise --timeout or the eval's timeoutMs, or make it faster",
      );
      expect(first.code).toBe(1);
      // --resume keeps the run's limits; --retry-errors may raise the one that errored it.
      const refused = await runCli(["run", "--resume", "--timeout", "5000"], own.dir);
      expect(refused.stderr).toContain("--resume continues the run as it started; drop --timeout");
      expect(refused.code).toBe(2);
      // A retry with its own limit, stopped at once while the slow case runs …
      const stopped = await runAndSignal(
        ["run", "--retry-errors", "--timeout", "5000", "--grace", "0"],
        own.dir,
        ["SIGINT"],
      );
      expect(stopped.stderr).toContain("retrying the errored attempt of run");
      expect(stopped.stderr).toContain("1 other is kept");
      expect(stopped.code).toBe(130);
      // … is finished by --resume with the retry's limit, not the run's first one.
      const resumed = await runCli(["run", "--resume"], own.dir);
      expect(resumed.stderr).toContain("which stopped while retrying its errored attempts");
      expect(resumed.stdout).toContain("2 passed");
      expect(resumed.code).toBe(0);
    } finally {
      await own.cleanup();
    }
  }, 120_000);
});

describe("an error outside any attempt, in a continued run", () => {
  it("stays the run's through --resume and --retry-errors: what caused it is not run again", async () => {
    // Case 1 leaves a timer that throws after its attempt; case 20 waits while SLOW is set.
    const own = await makeProject({
      "evals/late.eval.js": `import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
export const late = defineSuite({
  id: "late",
  concurrency: 1,
  cases: Array.from({ length: 30 }, (_, i) => ({ id: "c" + i, input: i })),
  target: async (i) => {
    if (i === 1) setTimeout(() => { throw new Error("late timer of c1"); }, 20);
    if (i === 20 && process.env.SLOW === "1") {
      console.error("TARGET-STARTED");
      await new Promise((r) => setTimeout(r, 5000));
    }
    await new Promise((r) => setTimeout(r, 10));
    return i;
  },
  scorers: [createScorer({ name: "ran", score: () => ({ score: 1 }) })],
});
`,
    });
    const outside = "1 error in user code belonged to no case (the run fails)";
    try {
      process.env.SLOW = "1";
      const stopped = await runAndSignal(["run", "--grace", "0"], own.dir, ["SIGINT"]).finally(
        () => {
          delete process.env.SLOW;
        },
      );
      expect(stopped.code).toBe(130);
      const resumed = await runCli(["run", "--resume"], own.dir);
      expect(resumed.stderr).toContain("resuming run");
      expect(resumed.stdout).toContain(outside);
      expect(resumed.stdout).toContain("late timer of c1");
      expect(resumed.code).toBe(1);
      const retried = await runCli(["run", "--retry-errors"], own.dir);
      expect(retried.stderr).toContain("retrying the 0 errored attempts");
      expect(retried.stdout).toContain(outside);
      expect(retried.code).toBe(1);
      const shown = await runCli(["show", "latest"], own.dir);
      expect(shown.stdout).toContain("late timer of c1");
      expect(shown.code).toBe(1);
    } finally {
      await own.cleanup();
    }
  }, 120_000);
});

// Every case errors while FLAKY is set, and takes 100 ms while SLOW is: a retry can be cut off.
const slowRetrySuite = suite
  .replace("i % 5 === 0 && process.env.FLAKY", "process.env.FLAKY")
  .replace(
    "target: (i) => {",
    'target: async (i) => {\n    if (process.env.SLOW === "1") await new Promise((r) => setTimeout(r, 100));',
  );

const lines = async (file: string) =>
  (await readFile(file, "utf8").catch(() => "")).split("\n").filter(Boolean).length;

describe("a --retry-errors that was killed, then resumed", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/flaky.eval.js": slowRetrySuite });
  });
  afterAll(async () => {
    await project.cleanup();
  });

  it("retries the errored attempts the retry had not reached", async () => {
    const dir = project.dir;
    expect((await runCli(["run"], dir, { FLAKY: "1" })).code).toBe(1);
    const retry = spawn(
      process.execPath,
      [cliPath, "run", "--retry-errors", "--concurrency", "1"],
      {
        cwd: dir,
        detached: true,
        env: { ...process.env, CI: "true", SLOW: "1" },
        stdio: "ignore",
      },
    );
    const exited = new Promise<void>((resolve) => retry.on("exit", () => resolve()));
    // 20 calls by the first run; a few more by the retry, then it is killed outright.
    const calls = join(dir, "calls.log");
    const deadline = Date.now() + 60_000;
    while ((await lines(calls)) < 25 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    process.kill(-retry.pid!, "SIGKILL");
    await exited;
    const resumed = await runCli(["run", "--resume"], dir);
    expect(resumed.stderr).toContain("which stopped while retrying its errored attempts");
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("20 passed");
    const store = await openSqliteStore(join(dir, ".niceeval/niceeval.sqlite"));
    try {
      const [run] = await store.listRuns();
      expect(run?.status).toBe("finished");
      expect(run?.totals).toMatchObject({ attempts: 20, passed: 20, errored: 0 });
    } finally {
      await store.close();
    }
  }, 120_000);
});

// Its dataset fails after three cases until the file `fixed` exists.
const unread = `
import { existsSync } from "node:fs";
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });

export const ds = defineSuite({
  id: "ds",
  cases: async function* () {
    for (let i = 0; i < 5; i++) {
      if (i === 3 && !existsSync("fixed")) throw new Error("db connection lost");
      yield { id: "c" + i, input: i, expected: i };
    }
  },
  target: async (x) => x,
  scorers: [same],
});
`;

describe("a continuation of a run whose dataset could not be read", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/ds.eval.js": unread });
  });
  afterAll(async () => {
    await project.cleanup();
  });

  it("reads it again: the stored run, show and runs agree with the retry's report", async () => {
    const dir = project.dir;
    const first = await runCli(["run"], dir);
    expect(first.code).toBe(1);
    expect(first.stdout).toContain("db connection lost");
    await writeFile(join(dir, "fixed"), "");
    const retried = await runCli(["run", "--retry-errors"], dir);
    expect(retried.code).toBe(0);
    expect(retried.stdout).toContain("5 cases: 5 passed");
    const shown = await runCli(["show", "latest"], dir);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("5 cases: 5 passed, 0 failed, 0 errored");
    const runs = JSON.parse((await runCli(["runs", "--json"], dir)).stdout) as {
      runId: string;
      cases: number;
      passRate: number;
      perEval: { n: number; passRate: number }[];
    }[];
    // The run's totals and its eval's summary say the same.
    expect(runs[0]).toMatchObject({ cases: 5, passed: 5, errored: 0, passRate: 1 });
    expect(runs[0]?.perEval[0]).toMatchObject({ n: 5, passRate: 1 });
    const store = await openSqliteStore(join(dir, ".niceeval/niceeval.sqlite"));
    try {
      const history: ReplacedAttempt[] = [];
      for await (const h of store.attemptHistory(runs[0]!.runId)) history.push(h);
      expect(history.map((h) => `${h.record.caseId}:${h.record.verdict}`)).toEqual([
        "(cases):errored",
      ]);
    } finally {
      await store.close();
    }
  }, 120_000);
});

describe("a continuation's gates", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/flaky.eval.js": suite });
  });
  afterAll(async () => {
    await project.cleanup();
  });

  it("are the run's own unless given again: the exit code is an uninterrupted run's", async () => {
    const dir = project.dir;
    // 4 of 20 attempts error: 80% passes a --min-pass-rate of 0.5.
    const first = await runCli(["run", "--min-pass-rate", "0.5"], dir, { FLAKY: "1" });
    expect(first.code).toBe(0);
    const again = await runCli(["run", "--retry-errors"], dir, { FLAKY: "1" });
    expect(again.stderr).toContain("within --min-pass-rate 0.5");
    expect(again.code).toBe(0);
    // A gate given to the continuation is its own.
    const stricter = await runCli(["run", "--retry-errors", "--min-pass-rate", "0.9"], dir, {
      FLAKY: "1",
    });
    expect(stricter.stderr).toContain("gate not met");
    expect(stricter.code).toBe(1);
  }, 120_000);
});

// 600 cases; the odd ones error while FLAKY is set, and take 300 ms while SLOW is (case 3 says
// when it starts): a retry stopped early has attempts queued ahead and attempts never reached.
const many = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
export const many = defineSuite({
  id: "many",
  cases: Array.from({ length: 600 }, (_, i) => ({ id: "c" + i, input: i, expected: i })),
  target: async (i) => {
    if (i % 2 === 1 && process.env.FLAKY === "1") throw new Error("upstream 503");
    if (i === 3) console.error("TARGET-STARTED c3");
    if (process.env.SLOW === "1") await new Promise((r) => setTimeout(r, 300));
    return i;
  },
  scorers: [createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) })],
});
`;

describe("a --retry-errors stopped by SIGINT", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/many.eval.js": many });
  });
  afterAll(async () => {
    await project.cleanup();
  });

  it("reports every attempt the store holds: the kept ones and the errored ones not yet retried", async () => {
    const dir = project.dir;
    expect((await runCli(["run", "--quiet"], dir, { FLAKY: "1" })).code).toBe(1);
    process.env.SLOW = "1";
    const stopped = await runAndSignal(
      ["run", "--retry-errors", "--concurrency", "2", "--json", "retry.json"],
      dir,
      ["SIGINT"],
    ).finally(() => {
      delete process.env.SLOW;
    });
    expect(stopped.code).toBe(130);
    const reported = await readJsonRecords(dir, "retry.json");
    const store = await openSqliteStore(join(dir, ".niceeval/niceeval.sqlite"));
    const held: AttemptRecord[] = [];
    try {
      const [run] = await store.listRuns();
      for await (const r of store.streamAttempts(run!.runId)) held.push(r);
    } finally {
      await store.close();
    }
    const key = (r: AttemptRecord) => `${r.caseId}:${r.verdict}`;
    expect(held).toHaveLength(600);
    expect(reported.map(key)).toEqual(held.map(key));
    // The odd cases not retried before the stop still hold their first error.
    const errored = held.filter((r) => r.verdict === "errored").length;
    expect(errored).toBeGreaterThan(0);
    expect(errored).toBeLessThanOrEqual(300);
    const passed = 600 - errored;
    expect(stopped.stdout).toContain(`1 eval · 600 cases · ${passed} passed`);
    const runs = JSON.parse((await runCli(["runs", "--json"], dir)).stdout) as {
      cases: number;
      passed: number;
    }[];
    expect(runs[0]).toMatchObject({ cases: 600, passed });
    // Those never retried are counted and said apart, not taken for attempts that all started.
    const notRetried = held.filter(
      (r) => r.verdict === "errored" && r.error?.message.includes("upstream 503"),
    ).length;
    expect(notRetried).toBeGreaterThan(0);
    const report = JSON.parse(await readFile(join(dir, "retry.json"), "utf8")) as {
      summary: { stopped?: { notRunAgain?: number } };
    };
    expect(report.summary.stopped?.notRunAgain).toBe(notRetried);
    expect(stopped.stdout).toContain(
      `${notRetried} errored attempts not run again (they keep their stored error)`,
    );
    expect(stopped.stdout).not.toContain("every attempt had started");
  }, 120_000);
});
