// The queue when things go wrong on the Redis side or between runs: --retry-errors runs the
// errored attempts again on the workers (their old jobs are still in Redis), and jobs that
// vanish from Redis mid-run (a restart without persistence, a flush) are enqueued again instead
// of leaving the run waiting for ever. A real redis-server and real `niceeval worker` processes.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gitInit } from "../cli/store-fixture.js";
import { cliPath, type FixtureProject, makeProject, runCli } from "../support/project.js";
import { flushAll, redisCommand, startRedis, type TestRedis } from "../support/redis.js";
import { type JsonReport, startWorker, stopAll } from "./fixture.js";

// $FAIL_ON names a case whose target throws; $MARK gets one line per attempt started, with the
// pid of the worker (the parent of the eval process that runs its attempts).
const evalFile = `
import { appendFileSync } from "node:fs";
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});

export const q = defineSuite({
  id: "q",
  cases: Array.from({ length: 6 }, (_, i) => ({ id: "c" + i, input: i, expected: i })),
  target: async (input) => {
    if (process.env.MARK) appendFileSync(process.env.MARK, process.ppid + " c" + input + "\\n");
    await new Promise((resolve) => setTimeout(resolve, Number(process.env.DELAY_MS ?? 20)));
    if (process.env.FAIL_ON === "c" + input) throw new Error("boom on c" + input);
    return input;
  },
  scorers: [same],
});
`;

let redis: TestRedis;
let project: FixtureProject;

beforeAll(async () => {
  redis = await startRedis();
  project = await makeProject({ "evals/q.eval.js": evalFile });
}, 120_000);

afterAll(async () => {
  await redis?.stop();
  await project?.cleanup();
});

const queueArgs = (name: string) => ["--queue", redis.url, "--queue-name", name];

/**
 * `run evals` on the queue `name` (then `more` flags), without a store, its stderr gathered:
 * `said(text)` waits up to 20 s for it to say `text`.
 */
function queuedRun([name, ...more]: [string, ...string[]]) {
  const child = spawn(
    process.execPath,
    [cliPath, "run", "evals", ...queueArgs(name), "--no-store", ...more],
    { cwd: project.dir, env: { ...process.env, CI: "true" }, stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const said = async (text: string) => {
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline && !stderr.includes(text))
      await new Promise((r) => setTimeout(r, 50));
  };
  return { child, stderr: () => stderr, said, exited };
}

describe("run --queue, recovering", () => {
  it("--retry-errors runs the errored attempt again on a worker, not the old job's result", async () => {
    const mark = join(project.dir, "retry.txt");
    const broken = await startWorker(project.dir, redis.url, "retry", mark, {
      env: { FAIL_ON: "c3" },
    });
    try {
      const first = await runCli(
        ["run", "evals", ...queueArgs("retry"), "--store", "retry.sqlite", "--name", "r"],
        project.dir,
      );
      expect(first.code).toBe(1);
      expect(first.stdout).toContain("boom on c3");
    } finally {
      await stopAll([broken]);
    }
    const fixed = await startWorker(project.dir, redis.url, "retry", mark);
    try {
      const retry = await runCli(
        [
          "run",
          ...queueArgs("retry"),
          "--retry-errors",
          "r",
          "--store",
          "retry.sqlite",
          "--json",
          "retry.json",
        ],
        project.dir,
      );
      expect(retry.stderr).toContain("retrying the errored attempt");
      expect(retry.code).toBe(0);
      const report = JSON.parse(
        readFileSync(join(project.dir, "retry.json"), "utf8"),
      ) as JsonReport;
      expect(report.records.map((r) => r.verdict)).toEqual(Array(6).fill("passed"));
      // c3 ran twice (the retry ran on the fixed worker); no other case ran again.
      const starts = readFileSync(mark, "utf8").trim().split("\n");
      expect(starts.filter((l) => l.endsWith(" c3"))).toHaveLength(2);
      expect(starts).toHaveLength(7);
      expect(starts.filter((l) => l.endsWith(" c3")).map((l) => l.split(" ")[0])).toEqual([
        String(broken.child.pid),
        String(fixed.child.pid),
      ]);
    } finally {
      await stopAll([fixed]);
    }
  }, 90_000);

  it("jobs that vanish from Redis mid-run are enqueued again and the run finishes", async () => {
    const mark = join(project.dir, "flush.txt");
    const worker = await startWorker(project.dir, redis.url, "flush", mark, {
      env: { DELAY_MS: "400" },
      args: ["--concurrency", "1"],
    });
    try {
      const run = runCli(
        ["run", "evals", ...queueArgs("flush"), "--no-store", "--json", "flush.json"],
        project.dir,
      );
      // Once the worker runs its first attempt, Redis loses every job (and the worker's lock).
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline && !(existsSync(mark) && readFileSync(mark, "utf8"))) {
        await new Promise((r) => setTimeout(r, 10));
      }
      await flushAll(redis.port);
      const result = await run;
      expect(result.stderr).toMatch(/vanished from queue flush .*; enqueued again/);
      expect(result.code).toBe(0);
      const report = JSON.parse(
        readFileSync(join(project.dir, "flush.json"), "utf8"),
      ) as JsonReport;
      expect(report.records.map((r) => [r.caseId, r.verdict])).toEqual(
        Array.from({ length: 6 }, (_, i) => [`c${i}`, "passed"]),
      );
    } finally {
      await stopAll([worker]);
    }
  }, 90_000);
});

describe("run --queue, its last worker gone", () => {
  it("says that no worker listens any more while attempts wait, instead of waiting in silence", async () => {
    const mark = join(project.dir, "gone.txt");
    const worker = await startWorker(project.dir, redis.url, "gone", mark, {
      env: { DELAY_MS: "60000" },
      args: ["--concurrency", "1"],
    });
    const { child, stderr, said, exited } = queuedRun(["gone"]);
    try {
      // The worker takes its first attempt, then dies with it.
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline && !(existsSync(mark) && readFileSync(mark, "utf8")))
        await new Promise((r) => setTimeout(r, 10));
      worker.child.kill("SIGKILL");
      await worker.exited;
      await said("any more");
      expect(stderr()).toMatch(
        /no worker listens on queue gone at redis:\/\/127\.0\.0\.1:\d+ any more; 6 attempts wait for one: start one \(niceeval worker --queue redis:\/\/127\.0\.0\.1:\d+ --queue-name gone evals\)/,
      );
      // It had a worker at its start: the message for a run that starts without one is not given.
      expect(stderr()).not.toContain("yet;");
    } finally {
      child.kill("SIGINT");
      await exited;
    }
  }, 60_000);
});

describe("run --queue on a queue of its own, no worker yet", () => {
  it("advises the worker command with its --queue-name and the run's paths, which run as given takes the attempts", async () => {
    const { child, stderr, said, exited } = queuedRun(["team-a", "--quiet"]);
    let worker: ReturnType<typeof spawn> | undefined;
    try {
      await said("yet;");
      const advised = /the attempts wait for one: niceeval (worker .*)\n/.exec(stderr())?.[1];
      expect(advised).toBe(`worker --queue ${redis.url} --queue-name team-a evals`);
      worker = spawn(process.execPath, [cliPath, ...advised!.split(" ")], {
        cwd: project.dir,
        env: { ...process.env, CI: "true" },
        stdio: "ignore",
      });
      expect(await exited).toBe(0);
    } finally {
      child.kill("SIGINT");
      worker?.kill("SIGTERM");
    }
  }, 60_000);
});

describe("run --queue, stopped", () => {
  it("SIGINT with no worker takes every job it enqueued back out of the queue", async () => {
    const child = spawn(
      process.execPath,
      [cliPath, "run", "evals", ...queueArgs("nowork"), "--no-store", "--json", "nowork.json"],
      { cwd: project.dir, env: { ...process.env, CI: "true" }, stdio: "ignore" },
    );
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    // Wait until the run's 6 jobs are in the queue (no worker takes them).
    const deadline = Date.now() + 20_000;
    while (
      Date.now() < deadline &&
      (await redisCommand(redis.port, "LLEN", "bull:nowork:wait")) !== ":6"
    )
      await new Promise((r) => setTimeout(r, 20));
    expect(await redisCommand(redis.port, "LLEN", "bull:nowork:wait")).toBe(":6");
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(await redisCommand(redis.port, "LLEN", "bull:nowork:wait")).toBe(":0");
    // Taken back at once, not after the grace period: nothing was running.
    const report = JSON.parse(readFileSync(join(project.dir, "nowork.json"), "utf8")) as JsonReport;
    expect(report.records).toHaveLength(6);
    for (const record of report.records)
      expect(record.error?.message).toBe("interrupted by SIGINT before a worker took the attempt");
  }, 60_000);
});

describe("run --queue, stopped: the summary", () => {
  it("says the attempts taken back out of the queue did not start, as their records do", async () => {
    const child = spawn(
      process.execPath,
      [cliPath, "run", "evals", ...queueArgs("words"), "--no-store", "--json", "words.json"],
      { cwd: project.dir, env: { ...process.env, CI: "true", NO_COLOR: "1" }, stdio: "pipe" },
    );
    let output = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
    });
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
    const deadline = Date.now() + 20_000;
    while (
      Date.now() < deadline &&
      (await redisCommand(redis.port, "LLEN", "bull:words:wait")) !== ":6"
    )
      await new Promise((r) => setTimeout(r, 20));
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    const report = JSON.parse(readFileSync(join(project.dir, "words.json"), "utf8")) as JsonReport;
    for (const record of report.records)
      expect(record.error?.message).toBe("interrupted by SIGINT before a worker took the attempt");
    const { summary } = report as unknown as { summary: { stopped: unknown } };
    expect(summary.stopped).toEqual({ notStarted: 0, unread: [], beforeStart: 6 });
    const cancelled = output.split("\n").find((line) => line.includes("cancelled:"));
    expect(cancelled).toContain("6 attempts stopped before they started");
    expect(cancelled).not.toContain("cut off");
    expect(cancelled).not.toContain("every attempt had started");
  }, 60_000);
});

describe("run --queue, workers on another commit", () => {
  it("a worker in a checkout of another commit refuses the jobs, naming both commits", async () => {
    const run = await makeProject({ "evals/q.eval.js": evalFile });
    const behind = await makeProject({ "evals/q.eval.js": evalFile });
    try {
      gitInit(run.dir);
      const theirs = gitInit(behind.dir);
      // The run's checkout moves on: a helper changed, the eval file did not.
      writeFileSync(join(run.dir, "helper.js"), "export const x = 2;\n");
      execFileSync("git", ["add", "-A"], { cwd: run.dir });
      execFileSync(
        "git",
        ["-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", "helper"],
        { cwd: run.dir },
      );
      const ours = execFileSync("git", ["rev-parse", "HEAD"], { cwd: run.dir, encoding: "utf8" });
      const worker = await startWorker(behind.dir, redis.url, "commits", join(behind.dir, "m.txt"));
      try {
        const result = await runCli(
          ["run", "evals", ...queueArgs("commits"), "--no-store", "--json", "c.json"],
          run.dir,
        );
        expect(result.code).toBe(1);
        const report = JSON.parse(readFileSync(join(run.dir, "c.json"), "utf8")) as JsonReport;
        expect(report.records).toHaveLength(6);
        for (const record of report.records)
          expect(record.error?.message).toContain(
            `is on commit ${theirs.slice(0, 12)}, the run on ${ours.trim().slice(0, 12)}: what the eval files import may differ`,
          );
        expect(existsSync(join(behind.dir, "m.txt"))).toBe(false);
      } finally {
        await stopAll([worker]);
      }
    } finally {
      await run.cleanup();
      await behind.cleanup();
    }
  }, 60_000);
});
