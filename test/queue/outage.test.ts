// Redis going away while `run --queue` waits for its workers and they hold jobs: paused
// (SIGSTOP, then SIGCONT) or restarted on its port (without persistence, so its jobs are gone).
// The run must end with one record per attempt, and the workers must outlive the outage and
// say it. A real redis-server and real `niceeval worker` processes.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runCli, startCli } from "../support/project.js";
import { startRedis, type TestRedis } from "../support/redis.js";
import { type JsonReport, startWorker, stopAll, type Worker } from "./fixture.js";

const CASES = 12;
// $MARK gets one line per attempt started.
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
  cases: Array.from({ length: ${CASES} }, (_, i) => ({ id: "c" + i, input: i, expected: i })),
  target: async (input) => {
    appendFileSync(process.env.MARK, process.pid + " c" + input + "\\n");
    if (process.env.CRASH_ON === "c" + input) process.kill(process.pid, "SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 400));
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Run the queue `name` on two workers; `outage` is made once a worker started an attempt. */
async function runThrough(
  name: string,
  outage: () => Promise<void>,
  onStderr: (stderr: string) => void = () => {},
) {
  const mark = join(project.dir, `${name}.txt`);
  const workers: Worker[] = [];
  try {
    for (let i = 0; i < 2; i++) workers.push(await startWorker(project.dir, redis.url, name, mark));
    const run = startCli(
      [
        "run",
        "evals",
        "--queue",
        redis.url,
        "--queue-name",
        name,
        "--no-store",
        "--json",
        `${name}.json`,
      ],
      project.dir,
      onStderr,
    ).ended;
    while (!(existsSync(mark) && readFileSync(mark, "utf8"))) await sleep(10);
    await outage();
    const result = await run;
    const alive = workers.map((w) => w.child.exitCode === null && w.child.signalCode === null);
    const report = existsSync(join(project.dir, `${name}.json`))
      ? (JSON.parse(readFileSync(join(project.dir, `${name}.json`), "utf8")) as JsonReport)
      : undefined;
    return { ...result, alive, report, workerStderr: workers.map((w) => w.stderr()) };
  } finally {
    redis.freeze("SIGCONT");
    await stopAll(workers);
  }
}

const everyCaseOnce = Array.from({ length: CASES }, (_, i) => [`c${i}`, "passed"]);

/** A worker's lines about a job whose lock Redis lost: one per job, though BullMQ reports it twice. */
function lostLocksSaidOnce(workerStderr: string): void {
  const lines = workerStderr.split("\n").filter((line) => line.includes("could not be saved"));
  expect(lines).toEqual([...new Set(lines)]);
}

describe("run --queue while Redis goes away", () => {
  it("paused for 3 s (SIGSTOP, SIGCONT) while workers hold jobs: one passed record per case, workers still up", async () => {
    const result = await runThrough("paused", async () => {
      redis.freeze("SIGSTOP");
      await sleep(3000);
      redis.freeze("SIGCONT");
    });
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.code).toBe(0);
    expect(result.report?.records.map((r) => [r.caseId, r.verdict])).toEqual(everyCaseOnce);
    expect(result.alive).toEqual([true, true]);
    for (const said of result.workerStderr) lostLocksSaidOnce(said);
  }, 60_000);

  it("paused past 10 s while the run waits: the run says it waits for Redis, naming it, and ends once it answers", async () => {
    let said = "";
    const result = await runThrough(
      "long",
      async () => {
        redis.freeze("SIGSTOP");
        while (!said.includes("has not answered")) await sleep(50);
        redis.freeze("SIGCONT");
      },
      (stderr) => {
        said = stderr;
      },
    );
    expect(result.stderr).toMatch(
      new RegExp(
        `niceeval: Redis at ${redis.url.replace(/[.]/g, "\\.")} has not answered for \\d+ s; the run waits for it \\(Ctrl-C stops it\\)`,
      ),
    );
    expect(result.code).toBe(0);
    expect(result.report?.records.map((r) => [r.caseId, r.verdict])).toEqual(everyCaseOnce);
    expect(result.alive).toEqual([true, true]);
  }, 60_000);

  it("restarted on its port without its data while workers hold jobs: one passed record per case, workers still up", async () => {
    const result = await runThrough("restarted", async () => {
      await redis.halt();
      await sleep(1000);
      await redis.restart();
    });
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stderr).toMatch(/vanished from queue restarted .*; enqueued again/);
    expect(result.code).toBe(0);
    expect(result.report?.records.map((r) => [r.caseId, r.verdict])).toEqual(everyCaseOnce);
    expect(result.alive).toEqual([true, true]);
    for (const said of result.workerStderr) {
      expect(said).toContain(`niceeval worker: lost the connection to Redis at ${redis.url} (`);
      expect(said).not.toContain("queue error: Connection is closed");
      expect(said).not.toMatch(/\n\s+at /);
      lostLocksSaidOnce(said);
    }
  }, 60_000);

  it("a case that kills each worker that takes it (--no-supervise): said to run again, then errored, the other cases passed", async () => {
    const mark = join(project.dir, "crash.txt");
    const workers: Worker[] = [];
    try {
      for (let i = 0; i < 3; i++)
        workers.push(
          // One job at a time: a worker that dies on c5 holds no other job, which a second death
          // would error too.
          // Attempts in the worker's own process, so the case kills the worker itself.
          await startWorker(project.dir, redis.url, "crash", mark, {
            args: ["--concurrency", "1", "--no-supervise"],
            env: { CRASH_ON: "c5" },
          }),
        );
      const result = await runCli(
        [
          "run",
          "evals",
          ...["--queue", redis.url, "--queue-name", "crash"],
          ...["--no-store", "--json", "crash.json"],
        ],
        project.dir,
      );
      expect(result.stderr).toContain(
        "niceeval: the worker running q/c5 stopped renewing its lock (it died, was killed or lost Redis); the attempt runs again on a worker\n",
      );
      expect(result.stderr).toContain(
        "niceeval: the worker running q/c5 stopped renewing its lock (it died, was killed or lost Redis); the second time, so the attempt is errored (the case may crash its process)\n",
      );
      const records = (
        JSON.parse(readFileSync(join(project.dir, "crash.json"), "utf8")) as JsonReport
      ).records;
      expect(records.map((r) => [r.caseId, r.verdict])).toEqual(
        everyCaseOnce.map(([c, verdict]) => [c, c === "c5" ? "errored" : verdict]),
      );
      expect(records[5]?.error?.message).toContain(
        "the workers running this attempt died or stalled too often",
      );
      expect(result.code).toBe(1);
      // Two workers died on c5; the third ran the rest.
      expect(
        workers.filter((w) => w.child.exitCode === null && w.child.signalCode === null),
      ).toHaveLength(1);
    } finally {
      await stopAll(workers);
    }
  }, 60_000);
});
