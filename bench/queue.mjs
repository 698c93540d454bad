// Workers on a queue: a target that waits 50 ms per case (I/O-bound, as agents are) through a
// real redis-server; throughput with 1 and 3 `niceeval worker` processes, and what the queue
// adds per case against the same run in process. Figures are the run's own elapsed time (the
// JSON report's), so process startup is left out; medians of 3.
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { register } from "tsx/esm/api";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const cli = join(root, "dist/cli/bin.js");
const WORKER_CONCURRENCY = 4;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function project(cases) {
  const dir = mkdtempSync(join(tmpdir(), "niceeval-bench-queue-"));
  mkdirSync(join(dir, "node_modules"));
  mkdirSync(join(dir, "evals"));
  symlinkSync(root, join(dir, "node_modules", "niceeval"), "dir");
  writeFileSync(join(dir, "package.json"), '{"name":"bench","type":"module"}');
  writeFileSync(
    join(dir, "evals", "wait.eval.js"),
    `import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });
export const wait = defineSuite({
  id: "wait",
  cases: Array.from({ length: ${cases} }, (_, i) => ({ id: "c" + i, input: i, expected: i })),
  target: async (input) => { await new Promise((r) => setTimeout(r, 50)); return input; },
  scorers: [same],
});
`,
  );
  return dir;
}

function startWorker(dir, url, queue, concurrency) {
  const child = spawn(
    process.execPath,
    [
      cli,
      "worker",
      "--queue",
      url,
      "--queue-name",
      queue,
      "evals",
      "--concurrency",
      String(concurrency),
    ],
    { cwd: dir, stdio: ["ignore", "ignore", "pipe"] },
  );
  return new Promise((done) => {
    let text = "";
    child.stderr.on("data", (chunk) => {
      text += chunk;
      if (text.includes("ready:")) done(child);
    });
  });
}

/** The run's elapsed ms, from its JSON report. */
function timedRun(dir, args) {
  const report = join(dir, "report.json");
  execFileSync(
    process.execPath,
    [cli, "run", "evals", "--no-store", "--quiet", "--json", report, ...args],
    {
      cwd: dir,
      stdio: "ignore",
      env: { ...process.env, CI: "true" },
    },
  );
  return JSON.parse(readFileSync(report, "utf8")).summary.elapsedMs;
}

async function withWorkers(dir, url, queue, count, concurrency, work) {
  const workers = await Promise.all(
    Array.from({ length: count }, () => startWorker(dir, url, queue, concurrency)),
  );
  try {
    return work();
  } finally {
    for (const worker of workers) worker.kill("SIGTERM");
  }
}

/**
 * CPU time of this process reading one LRANGE reply of `count` short items (what LRANGE, HGETALL
 * and ZRANGE of a large queue give) through the queue's Redis client; median of `runs`.
 */
export async function replyCpu(redis, { count = 500_000, runs = 3 } = {}) {
  const { RespConnection } = await import("../src/queue/resp.ts");
  const connection = new RespConnection({ host: "127.0.0.1", port: redis.port, tls: false });
  await connection.connect();
  try {
    await connection.send("DEL", ["bench:items"]);
    for (let i = 0; i < count; i += 10_000) {
      const values = Array.from({ length: Math.min(10_000, count - i) }, (_, j) => `item${i + j}`);
      await connection.send("RPUSH", ["bench:items", ...values]);
    }
    const times = [];
    for (let r = 0; r < runs; r++) {
      const before = process.cpuUsage();
      const items = await connection.send("LRANGE", ["bench:items", "0", "-1"]);
      const used = process.cpuUsage(before);
      if (items.length !== count) throw new Error(`LRANGE gave ${items.length} items`);
      times.push((used.user + used.system) / 1000);
    }
    await connection.send("DEL", ["bench:items"]);
    console.log(
      `queue: one LRANGE reply of ${count} short items read in ${median(times).toFixed(0)} ms of CPU (this process; median of ${runs})`,
    );
  } finally {
    connection.close();
  }
}

export async function run({ quick = false } = {}) {
  // The tests' server: Debian's redis-server, installed with apt-get when missing (as root).
  register();
  const { startRedis } = await import("../test/support/redis.ts");
  const cases = quick ? 60 : 150;
  const overheadCases = quick ? 20 : 40;
  const dir = project(cases);
  const small = project(overheadCases);
  const redis = await startRedis();
  const runs = 3;
  try {
    await replyCpu(redis, { count: quick ? 100_000 : 500_000 });
    const queueArgs = (queue) => ["--queue", redis.url, "--queue-name", queue];
    const throughput = async (workers) => {
      const queue = `tp${workers}`;
      const times = await withWorkers(dir, redis.url, queue, workers, WORKER_CONCURRENCY, () =>
        Array.from({ length: runs }, () => timedRun(dir, queueArgs(queue))),
      );
      return cases / (median(times) / 1000);
    };
    const one = await throughput(1);
    const three = await throughput(3);
    console.log(
      `queue: ${cases} cases waiting 50 ms, workers at concurrency ${WORKER_CONCURRENCY}: 1 worker ${one.toFixed(1)} cases/s, 3 workers ${three.toFixed(1)} cases/s, ${(three / one).toFixed(2)}× (target ≥ 2.5×; medians of ${runs})`,
    );

    // One attempt at a time, so the difference is what each case spends in the queue.
    const inProcess = median(
      Array.from({ length: runs }, () => timedRun(small, ["--concurrency", "1", "--no-supervise"])),
    );
    const queued = median(
      await withWorkers(small, redis.url, "overhead", 1, 1, () =>
        Array.from({ length: runs }, () =>
          timedRun(small, [...queueArgs("overhead"), "--concurrency", "1"]),
        ),
      ),
    );
    const perCase = (queued - inProcess) / overheadCases;
    console.log(
      `queue: overhead ${perCase.toFixed(2)} ms per case (${overheadCases} cases one at a time: ${(queued / 1000).toFixed(2)} s queued vs ${(inProcess / 1000).toFixed(2)} s in process; target ≤ 5 ms; medians of ${runs})`,
    );
  } finally {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(small, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes("--reply")) {
    // Only the reply figure: `node bench/queue.mjs --reply` (no build needed).
    register();
    const { startRedis } = await import("../test/support/redis.ts");
    const redis = await startRedis();
    try {
      await replyCpu(redis);
    } finally {
      await redis.stop();
    }
  } else await run({ quick: process.argv.includes("--quick") });
}
