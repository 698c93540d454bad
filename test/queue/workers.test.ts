// Workers on BullMQ through the built CLI: a real redis-server, three `niceeval worker`
// processes (one SIGKILLed mid-run), a worker with other eval files, an unreachable Redis.
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { type AddressInfo, createServer as createTcpServer, type Socket } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";
import {
  freePort,
  redisCommand,
  startRedis,
  startSentinel,
  type TestRedis,
} from "../support/redis.js";
import { type JsonReport, startWorker, stopAll } from "./fixture.js";

const CASES = 24;

// Every start of an attempt appends "<pid> <case>" to $MARK, so the test sees who runs what: the
// pid of the worker, the parent of the eval process that runs its attempts.
// $SHIFT moves every input (same file, same case ids, another dataset).
const evalFile = (delayMs: number, note = "") => `${note}
import { appendFileSync } from "node:fs";
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});

export const slow = defineSuite({
  id: "slow",
  cases: Array.from({ length: ${CASES} }, (_, i) => ({
    id: "c" + i,
    input: i + Number(process.env.SHIFT ?? 0),
    expected: i % 4 === 0 ? -1 : i,
  })),
  target: async (input) => {
    if (process.env.MARK) appendFileSync(process.env.MARK, process.ppid + " c" + input + "\\n");
    await new Promise((resolve) => setTimeout(resolve, ${delayMs}));
    return input;
  },
  scorers: [same],
});
`;

let redis: TestRedis;
let project: FixtureProject;
let other: FixtureProject;

beforeAll(async () => {
  redis = await startRedis();
  project = await makeProject({ "evals/slow.eval.js": evalFile(150) });
  // The same eval id from a file with other contents: its worker must refuse the run's jobs.
  other = await makeProject({ "evals/slow.eval.js": evalFile(150, "// edited") });
}, 120_000);

afterAll(async () => {
  await redis?.stop();
  await project?.cleanup();
  await other?.cleanup();
});

/**
 * The run of `project` on `queueName` whose one worker, started in `workerDir` with `env`, refuses
 * every job: each attempt is errored and the worker ran none. Resolves to the run's records.
 */
async function refusedRecords(
  workerDir: string,
  queueName: string,
  env: Record<string, string> = {},
): Promise<JsonReport["records"]> {
  const mark = join(workerDir, `${queueName}.txt`);
  const worker = await startWorker(workerDir, redis.url, queueName, mark, { env });
  try {
    const json = `${queueName}.json`;
    const args = ["run", "evals", "--queue", redis.url, "--queue-name", queueName];
    const result = await runCli([...args, "--json", json, "--no-store"], project.dir);
    expect(result.code).toBe(1);
    const report = JSON.parse(readFileSync(join(project.dir, json), "utf8")) as JsonReport;
    expect(report.records).toHaveLength(CASES);
    for (const record of report.records) expect(record.verdict).toBe("errored");
    expect(worker.stderr()).toContain("refused attempt");
    // It ran none of them.
    expect(existsSync(mark)).toBe(false);
    return report.records;
  } finally {
    await stopAll([worker]);
  }
}

/**
 * A run and a worker on `url` both exit 2 before any case runs, saying why in one short message:
 * "cannot reach the Redis queue <url>: <why>".
 */
async function expectRefusedUpfront(url: string, markFile: string, why: string): Promise<void> {
  const mark = join(project.dir, markFile);
  const run = await runCli(["run", "evals", "--queue", url, "--no-store"], project.dir, {
    MARK: mark,
  });
  expect(run.code).toBe(2);
  expect(run.stderr).toContain(`cannot reach the Redis queue ${url}: ${why}`);
  expect(existsSync(mark)).toBe(false);
  const worker = await runCli(["worker", "--queue", url, "evals"], project.dir);
  expect(worker.code).toBe(2);
  expect(worker.stderr).toContain(`cannot reach the Redis queue ${url}: ${why}`);
  expect(worker.stderr.split("\n").length).toBeLessThan(5);
}

describe("niceeval run --queue with niceeval worker", () => {
  it("three workers, one SIGKILLed mid-run: one attempt per case, the right verdicts", async () => {
    const mark = join(project.dir, "marks.txt");
    const workers = await Promise.all(
      [0, 1, 2].map(() => startWorker(project.dir, redis.url, "kill", mark)),
    );
    try {
      const run = runCli(
        [
          "run",
          "evals",
          "--queue",
          redis.url,
          "--queue-name",
          "kill",
          "--json",
          "report.json",
          "--store",
          "runs.sqlite",
        ],
        project.dir,
      );
      // Kill the first worker once it is running an attempt.
      const victim = workers[0]!;
      const victimPid = String(victim.child.pid);
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        const marks = existsSync(mark) ? readFileSync(mark, "utf8") : "";
        if (marks.split("\n").some((line) => line.startsWith(`${victimPid} `))) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      victim.child.kill("SIGKILL");
      const result = await run;
      expect(result.stderr).not.toContain("crashed");
      expect(result.code).toBe(1); // every fourth case fails by design

      const report = JSON.parse(
        readFileSync(join(project.dir, "report.json"), "utf8"),
      ) as JsonReport;
      const ids = report.records.map((r) => r.caseId);
      expect(ids).toHaveLength(CASES);
      expect(new Set(ids).size).toBe(CASES);
      for (const record of report.records) {
        const i = Number(record.caseId.slice(1));
        expect(record.verdict, record.caseId).toBe(i % 4 === 0 ? "failed" : "passed");
      }

      // The killed worker's attempt ran again elsewhere: some case started twice, on two pids.
      const starts = readFileSync(mark, "utf8").trim().split("\n");
      const victimCases = starts
        .filter((l) => l.startsWith(`${victimPid} `))
        .map((l) => l.split(" ")[1]);
      const rerun = victimCases.filter((c) => starts.filter((l) => l.endsWith(` ${c}`)).length > 1);
      expect(rerun.length).toBeGreaterThan(0);
      // And the run says so, naming each attempt that runs again.
      for (const c of rerun)
        expect(result.stderr).toContain(
          `niceeval: the worker running slow/${c} stopped renewing its lock (it died, was killed or lost Redis); the attempt runs again on a worker`,
        );
      expect(new Set(starts.map((l) => l.split(" ")[0])).size).toBe(3);

      // The run is the store's single writer: exactly one stored attempt per case.
      const runs = await runCli(["runs", "--json", "--store", "runs.sqlite"], project.dir);
      const [stored] = JSON.parse(runs.stdout) as { attempts: number; cases: number }[];
      expect(stored).toMatchObject({ attempts: CASES, cases: CASES });
    } finally {
      await stopAll(workers);
    }
  }, 120_000);

  it("a worker whose eval file differs refuses the job, naming the file", async () => {
    const records = await refusedRecords(other.dir, "mismatch");
    for (const record of records)
      expect(record.error?.message).toMatch(
        /eval file evals\/slow\.eval\.js differs from the run's/,
      );
  }, 60_000);

  it("a worker whose dataset differs (same file, same case ids) refuses the job, naming the case", async () => {
    const records = await refusedRecords(project.dir, "shifted", { SHIFT: "1" });
    for (const record of records)
      expect(record.error?.message).toMatch(
        new RegExp(
          `^case "${record.caseId}" of eval "slow" has another input on worker \\S+ than in the run \\(hash \\w+ here, \\w+ in the run\\): the eval's dataset differs although its file does not`,
        ),
      );
  }, 60_000);

  it("an unreachable Redis: exit 2 before any case runs, the password masked", async () => {
    const port = await freePort();
    const url = `redis://ops:s3cret-pw@127.0.0.1:${port}`;
    const mark = join(project.dir, "never.txt");
    const run = await runCli(["run", "evals", "--queue", url, "--no-store"], project.dir, {
      MARK: mark,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`cannot reach the Redis queue redis://ops:***@127.0.0.1:${port}`);
    expect(run.stderr + run.stdout).not.toContain("s3cret-pw");
    expect(existsSync(mark)).toBe(false);
    const worker = await runCli(["worker", "--queue", url, "evals"], project.dir);
    expect(worker.code).toBe(2);
    expect(worker.stderr).toContain(`redis://ops:***@127.0.0.1:${port}`);
    expect(worker.stderr).not.toContain("s3cret-pw");
  }, 60_000);

  it("a port where no Redis listens (an HTTP server): exit 2 naming what answered, no crash", async () => {
    const http = createServer((_request, response) => response.end("hello"));
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    const { port } = http.address() as AddressInfo;
    try {
      const url = `redis://:s3cret-pw@127.0.0.1:${port}`;
      const run = await runCli(["run", "evals", "--queue", url, "--no-store"], project.dir);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(
        `cannot reach the Redis queue redis://:***@127.0.0.1:${port}: it does not speak the Redis protocol (it answered "HTTP/1.1 400 Bad Request"); check the host and port in --queue`,
      );
      expect(run.stderr).not.toContain("uncaught");
      expect(run.stderr).not.toContain("    at ");
      const worker = await runCli(["worker", "--queue", url, "evals"], project.dir);
      expect(worker.code).toBe(2);
      expect(worker.stderr).toContain("it does not speak the Redis protocol");
      expect(worker.stderr).not.toContain("    at ");
      expect(run.stderr + worker.stderr).not.toContain("s3cret-pw");
    } finally {
      await new Promise((resolve) => http.close(resolve));
    }
  }, 60_000);

  it("a port that closes the connection unanswered (a Redis that takes TLS only): exit 2 pointing at rediss://, not at starting Redis", async () => {
    // What a redis-server with only a --tls-port does with a plain connection's PING.
    const closing = createTcpServer((socket) => {
      socket.on("error", () => {}).once("data", () => socket.destroy());
    });
    await new Promise<void>((resolve) => closing.listen(0, "127.0.0.1", resolve));
    const { port } = closing.address() as AddressInfo;
    try {
      const run = await runCli(
        ["run", "evals", "--queue", `redis://127.0.0.1:${port}`, "--no-store"],
        project.dir,
      );
      expect(run.code).toBe(2);
      expect(run.stderr).not.toContain("start Redis there");
      expect(run.stderr).toContain(
        `cannot reach the Redis queue redis://127.0.0.1:${port}: it closed the connection without answering (a Redis that takes only TLS connections does: is it one? rediss:// is for TLS); check the host and port in --queue`,
      );
    } finally {
      await new Promise((resolve) => closing.close(resolve));
    }
  }, 60_000);

  it("a port that takes the connection and never answers: exit 2 within the probe's time, no hang", async () => {
    const sockets: Socket[] = [];
    const silent = createTcpServer((socket) => sockets.push(socket.on("error", () => {})));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const run = await runCli(
        ["run", "evals", "--queue", `redis://127.0.0.1:${port}`, "--no-store"],
        project.dir,
      );
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(
        `cannot reach the Redis queue redis://127.0.0.1:${port}: it took the connection but did not answer within 10000 ms (is it a Redis?); check the host and port in --queue`,
      );
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  }, 60_000);

  it("a read-only replica: exit 2 before any case runs, naming its primary, no error flood", async () => {
    const replica = await startRedis();
    try {
      expect(await redisCommand(replica.port, "REPLICAOF", "127.0.0.1", String(redis.port))).toBe(
        "+OK",
      );
      await expectRefusedUpfront(
        replica.url,
        "replica.txt",
        `it is a read-only replica of 127.0.0.1:${redis.port}; point --queue at the primary`,
      );
    } finally {
      await replica.stop();
    }
  }, 60_000);

  it("a replica that takes writes (replica-read-only no): refused too, saying why", async () => {
    const replica = await startRedis([
      "--replicaof",
      "127.0.0.1",
      String(redis.port),
      "--replica-read-only",
      "no",
    ]);
    try {
      await expectRefusedUpfront(
        replica.url,
        "writable.txt",
        `it is a replica of 127.0.0.1:${redis.port} that takes writes (replica-read-only no), but jobs written there never reach its primary, where other runs and workers look, and its next full resync erases them; point --queue at the primary`,
      );
    } finally {
      await replica.stop();
    }
  }, 60_000);

  it("a Redis Sentinel: exit 2 before any case runs, naming the URL and the primary's address", async () => {
    const sentinel = await startSentinel(redis.port);
    try {
      await expectRefusedUpfront(
        sentinel.url,
        "sentinel.txt",
        `it is a Redis Sentinel watching mymaster, primary at 127.0.0.1:${redis.port}, not a Redis server; Sentinel URLs are not supported (the queue connects to one server and does not ask a Sentinel for its primary): point --queue at the primary's address, redis://host:port`,
      );
    } finally {
      await sentinel.stop();
    }
  }, 60_000);

  it("a worker whose Redis turns replica mid-run says READONLY once, not on every try", async () => {
    const turning = await startRedis();
    const worker = await startWorker(
      project.dir,
      turning.url,
      "turning",
      join(project.dir, "t.txt"),
    );
    try {
      await redisCommand(turning.port, "REPLICAOF", "127.0.0.1", String(redis.port));
      await new Promise((r) => setTimeout(r, 4000));
      const said = worker
        .stderr()
        .split("\n")
        .filter((l) => l.includes("READONLY"));
      expect(said.length).toBeGreaterThan(0);
      // One for the fetch of jobs, one for the stalled check's script (its message names it).
      expect(said.length, said.join("\n")).toBeLessThanOrEqual(2);
    } finally {
      await stopAll([worker]);
      await turning.stop();
    }
  }, 60_000);

  it("a Redis that is there but refuses the password, or speaks no TLS, is said as such", async () => {
    const withPassword = redis.url.replace("redis://", "redis://:s3cret-pw@");
    const auth = await runCli(["run", "evals", "--queue", withPassword, "--no-store"], project.dir);
    expect(auth.code).toBe(2);
    expect(auth.stderr).toMatch(/it refused the credentials \(.*\); check the user and password/);
    // It answered: starting a Redis there is no advice.
    expect(auth.stderr).not.toContain("start Redis there");
    // A database the server does not have: name one it has.
    const noDb = await runCli(
      ["run", "evals", "--queue", `${redis.url}/99`, "--no-store"],
      project.dir,
    );
    expect(noDb.code).toBe(2);
    expect(noDb.stderr).toContain("it has no database 99 (ERR DB index is out of range)");
    expect(noDb.stderr).not.toContain("start Redis there");
    const tls = await runCli(
      ["run", "evals", "--queue", redis.url.replace("redis://", "rediss://"), "--no-store"],
      project.dir,
    );
    expect(tls.code).toBe(2);
    expect(tls.stderr).toMatch(/cannot reach the Redis queue rediss:\/\/127\.0\.0\.1:\d+: .*TLS/);
    // An IP address is no TLS server name: Node's warning about one is not printed.
    expect(tls.stderr).not.toContain("DEP0123");
  }, 60_000);
});
