// NICEEVAL_QUEUE, the environment alternative to --queue: a real redis-server that wants a
// password, `niceeval worker` and `niceeval run` given its URL only through the environment, so
// no process's command line (what `ps` shows) holds the password.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";
import { freePort, redisCommand, startRedis, type TestRedis } from "../support/redis.js";
import { type JsonReport, startWorker, type Worker } from "./fixture.js";

const evalFile = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});

export const q = defineSuite({
  id: "q",
  cases: Array.from({ length: 4 }, (_, i) => ({ id: "c" + i, input: i, expected: i })),
  // A worker started with FAIL_ONE errors case c1 (a retry run here passes it).
  target: async (input) => {
    if (process.env.FAIL_ONE === "1" && input === 1) throw new Error("c1 fails on the worker");
    return input;
  },
  scorers: [same],
});
`;

const PASSWORD = "s3cret-pw";
let redis: TestRedis;
let project: FixtureProject;
/** The Redis URL with its password, as a user would export it. */
let secretUrl: string;

beforeAll(async () => {
  redis = await startRedis();
  expect(await redisCommand(redis.port, "CONFIG", "SET", "requirepass", PASSWORD)).toBe("+OK");
  secretUrl = `redis://:${PASSWORD}@127.0.0.1:${redis.port}`;
  project = await makeProject({ "evals/q.eval.js": evalFile });
}, 120_000);

afterAll(async () => {
  await redis?.stop();
  await project?.cleanup();
});

/** `niceeval worker` with no --queue: the queue's URL is NICEEVAL_QUEUE's. */
const startEnvWorker = (queueName: string): Promise<Worker> =>
  startWorker(project.dir, undefined, queueName, "marks", { env: { NICEEVAL_QUEUE: secretUrl } });

describe("NICEEVAL_QUEUE", () => {
  it("a worker and a run given the URL only by NICEEVAL_QUEUE: no password on a command line", async () => {
    const worker = await startEnvWorker("env");
    try {
      // What `ps` shows of the worker for its whole life.
      const cmdline = readFileSync(`/proc/${worker.child.pid}/cmdline`, "utf8");
      expect(cmdline).not.toContain(PASSWORD);
      expect(worker.stderr()).toContain(`queue env on redis://:***@127.0.0.1:${redis.port}`);
      const run = await runCli(
        ["run", "evals", "--queue-name", "env", "--no-store", "--json", "env.json"],
        project.dir,
        { NICEEVAL_QUEUE: secretUrl },
      );
      expect(run.stderr).not.toContain(PASSWORD);
      expect(run.code).toBe(0);
      // The run says where its attempts go, and how to run them here instead.
      expect(run.stderr).toContain(
        `attempts go to queue env on redis://:***@127.0.0.1:${redis.port} (from NICEEVAL_QUEUE); --no-queue runs them here`,
      );
      const report = JSON.parse(readFileSync(join(project.dir, "env.json"), "utf8")) as JsonReport;
      expect(report.records.map((r) => r.verdict)).toEqual([
        "passed",
        "passed",
        "passed",
        "passed",
      ]);
    } finally {
      worker.child.kill("SIGTERM");
      await worker.exited;
    }
    expect(worker.stderr()).not.toContain(PASSWORD);
  }, 60_000);

  it("a run queued by NICEEVAL_QUEUE, retried with --no-queue, does not take its --concurrency of enqueued jobs", async () => {
    const worker = await startWorker(project.dir, undefined, "retry", "marks", {
      env: { NICEEVAL_QUEUE: secretUrl, FAIL_ONE: "1" },
    });
    try {
      const queued = await runCli(
        [
          "run",
          "evals",
          "--queue-name",
          "retry",
          "--concurrency",
          "300",
          "--store",
          "retry.sqlite",
        ],
        project.dir,
        { NICEEVAL_QUEUE: secretUrl },
      );
      expect(queued.stdout).toContain("c1 fails on the worker");
      expect(queued.code, queued.stderr).toBe(1);
    } finally {
      worker.child.kill("SIGTERM");
      await worker.exited;
    }
    // The 300 counted jobs enqueued at once; here it would be 300 attempts at once.
    const retried = await runCli(
      ["run", "--retry-errors", "--no-queue", "--store", "retry.sqlite"],
      project.dir,
      { NICEEVAL_QUEUE: secretUrl },
    );
    expect(retried.code, retried.stderr).toBe(0);
    expect(`${retried.stdout}${retried.stderr}`).not.toContain("--concurrency 300");
    expect(retried.stdout).toContain("concurrency 8");
  }, 60_000);

  it("--queue wins over NICEEVAL_QUEUE", async () => {
    const worker = await startEnvWorker("wins");
    try {
      const nowhere = `redis://:${PASSWORD}@127.0.0.1:${await freePort()}`;
      const run = await runCli(
        ["run", "evals", "--queue", secretUrl, "--queue-name", "wins", "--no-store"],
        project.dir,
        { NICEEVAL_QUEUE: nowhere },
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).not.toContain("from NICEEVAL_QUEUE");
    } finally {
      worker.child.kill("SIGTERM");
      await worker.exited;
    }
  }, 60_000);

  it("--no-queue runs here although NICEEVAL_QUEUE is set", async () => {
    const nowhere = `redis://:${PASSWORD}@127.0.0.1:${await freePort()}`;
    const run = await runCli(["run", "evals", "--no-queue", "--no-store"], project.dir, {
      NICEEVAL_QUEUE: nowhere,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain("queue");
  }, 60_000);

  it("a NICEEVAL_QUEUE that is no Redis URL is refused naming it, the password masked", async () => {
    for (const command of [
      ["run", "evals"],
      ["worker", "evals"],
    ]) {
      const result = await runCli(command, project.dir, {
        NICEEVAL_QUEUE: `ops:${PASSWORD}@redis.internal:6379`,
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        'NICEEVAL_QUEUE must be a Redis URL (redis://host:6379, rediss:// for TLS), got "ops:***@redis.internal:6379"',
      );
      expect(result.stderr).not.toContain(PASSWORD);
    }
  }, 60_000);

  it("an unreachable NICEEVAL_QUEUE: exit 2, the advice names NICEEVAL_QUEUE, the password masked", async () => {
    const port = await freePort();
    const url = `redis://ops:${PASSWORD}@127.0.0.1:${port}`;
    for (const command of [
      ["run", "evals", "--no-store"],
      ["worker", "evals"],
    ]) {
      const result = await runCli(command, project.dir, { NICEEVAL_QUEUE: url });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `cannot reach the Redis queue redis://ops:***@127.0.0.1:${port}: 127.0.0.1:${port} refused the connection; start Redis there, or set NICEEVAL_QUEUE to redis://host:port`,
      );
      expect(result.stderr).not.toContain(PASSWORD);
    }
  }, 60_000);

  it("a worker with neither --queue nor NICEEVAL_QUEUE says what to pass", async () => {
    const result = await runCli(["worker", "evals"], project.dir, { NICEEVAL_QUEUE: "" });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "niceeval worker needs --queue redis://host:6379, or NICEEVAL_QUEUE set to that URL (which keeps a password off the command line)",
    );
  }, 30_000);
});
