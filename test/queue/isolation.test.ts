// A worker runs its jobs in a supervised eval process, as `niceeval run` does: a case that ends
// its process (process.exit) or leaves a stray rejection costs its own attempt, not the worker
// and the jobs beside it. A real redis-server and real `niceeval worker` processes.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runCli, startCli } from "../support/project.js";
import { startRedis, type TestRedis } from "../support/redis.js";
import { type JsonReport, readStarts, startWorker, stopAll } from "./fixture.js";

const same = `const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });`;

// Four cases that start together; "c" ends its process with code 3 each time it runs.
const exitingEval = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
${same}
export const exits = defineSuite({
  id: "exits",
  cases: ["a", "b", "c", "d"].map((id) => ({ id, input: id, expected: id })),
  target: async (id) => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    if (id === "c") process.exit(3);
    return id;
  },
  scorers: [same],
});
`;

// "s" leaves a rejected promise nobody handles, each time it runs.
const strayEval = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
${same}
export const stray = defineSuite({
  id: "stray",
  cases: ["p", "q", "s", "t"].map((id) => ({ id, input: id, expected: id })),
  target: async (id) => {
    if (id === "s") Promise.reject(new Error("stray"));
    await new Promise((resolve) => setTimeout(resolve, 200));
    return id;
  },
  scorers: [same],
});
`;

// Top-level code that leaves a rejection unhandled once the file has loaded, outside any attempt.
const topLevelEval = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
${same}
setTimeout(() => Promise.reject(new Error("from the top level")), 100);
export const plain = defineSuite({
  id: "plain",
  cases: [{ id: "a", input: "a", expected: "a" }],
  target: async (id) => id,
  scorers: [same],
});
`;

// Each start appends "<pid> <case> <ms>" to $MARK and each end "<pid> <case>-end <ms>"; "hang"
// never settles (the run's --timeout errors it).
const slowEval = `
import { appendFileSync } from "node:fs";
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
${same}
const mark = (what) => appendFileSync(process.env.MARK, process.pid + " " + what + " " + Date.now() + "\\n");
export const slow = defineSuite({
  id: "slow",
  cases: [...Array.from({ length: 6 }, (_, i) => "c" + i), "hang"].map((id) => ({ id, input: id, expected: id })),
  target: async (id) => {
    mark(id);
    if (id === "hang") return new Promise(() => {});
    await new Promise((resolve) => setTimeout(resolve, Number(process.env.DELAY_MS ?? 400)));
    mark(id + "-end");
    return id;
  },
  scorers: [same],
});
`;

let redis: TestRedis;
let exiting: FixtureProject;
let stray: FixtureProject;
let slow: FixtureProject;
let topLevel: FixtureProject;

beforeAll(async () => {
  redis = await startRedis();
  exiting = await makeProject({ "evals/exits.eval.js": exitingEval });
  stray = await makeProject({ "evals/stray.eval.js": strayEval });
  slow = await makeProject({ "evals/slow.eval.js": slowEval });
  topLevel = await makeProject({ "evals/plain.eval.js": topLevelEval });
}, 120_000);

afterAll(async () => {
  await redis?.stop();
  await exiting?.cleanup();
  await stray?.cleanup();
  await slow?.cleanup();
  await topLevel?.cleanup();
});

const queued = (name: string, json: string, more: readonly string[] = []) => [
  "run",
  "evals",
  ...["--queue", redis.url, "--queue-name", name, "--no-store", "--json", json],
  ...more,
];

const report = (dir: string, json: string) =>
  JSON.parse(readFileSync(join(dir, json), "utf8")) as JsonReport;

/** The run's end, or a failure as soon as the worker dies (the run would wait for ever). */
async function untilWorkerDies<T>(run: Promise<T>, exited: Promise<number | null>): Promise<T> {
  const died = exited.then((code) => {
    throw new Error(`the worker died (exit ${code}) while the run waited`);
  });
  return Promise.race([run, died]);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("niceeval worker isolates attempts in an eval process", () => {
  it("a case that calls process.exit(3) beside three others: only it is errored, the worker lives", async () => {
    const worker = await startWorker(exiting.dir, redis.url, "exits", join(exiting.dir, "m"), {
      args: ["--concurrency", "4"],
    });
    try {
      const run = await untilWorkerDies(
        runCli(queued("exits", "exits.json"), exiting.dir),
        worker.exited,
      );
      expect(run.code).toBe(1);
      const records = report(exiting.dir, "exits.json").records;
      expect(records.map((r) => [r.caseId, r.verdict])).toEqual([
        ["a", "passed"],
        ["b", "passed"],
        ["c", "errored"],
        ["d", "passed"],
      ]);
      expect(records[2]?.error?.message).toMatch(
        /^the eval process exited with code 3 \(process\.exit called at .*exits\.eval\.js.*\) during this case; it was running at 2 crashes of the eval process, so it is not run again$/,
      );
      expect(worker.child.exitCode).toBeNull();
      expect(worker.child.signalCode).toBeNull();
      expect(worker.stderr()).not.toContain("called process.exit");
    } finally {
      await stopAll([worker]);
    }
  }, 60_000);

  it("a target that leaves a rejection unhandled: its attempt is errored, the worker lives and the run ends", async () => {
    const worker = await startWorker(stray.dir, redis.url, "stray", join(stray.dir, "m"), {
      args: ["--concurrency", "4"],
    });
    try {
      const run = await untilWorkerDies(
        runCli(queued("stray", "stray.json"), stray.dir),
        worker.exited,
      );
      expect(run.code).toBe(1);
      const records = report(stray.dir, "stray.json").records;
      expect(records.map((r) => [r.caseId, r.verdict])).toEqual([
        ["p", "passed"],
        ["q", "passed"],
        ["s", "errored"],
        ["t", "passed"],
      ]);
      expect(records[2]?.error?.message).toContain("unhandled rejection in user code: stray");
      expect(worker.child.exitCode).toBeNull();
      expect(worker.stderr()).not.toMatch(/\n\s+at /);
    } finally {
      await stopAll([worker]);
    }
  }, 60_000);

  it("an error of an eval file's top-level code: the worker says it belongs to no run it can tell, and lives", async () => {
    const worker = await startWorker(topLevel.dir, redis.url, "top", join(topLevel.dir, "m"));
    try {
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && !worker.stderr().includes("from the top level"))
        await new Promise((r) => setTimeout(r, 50));
      expect(worker.stderr()).toMatch(
        /niceeval worker: unhandled rejection in user code: from the top level \(at .*plain\.eval\.js.*\); an error in the eval process that no attempt of it owns, said here only: the worker cannot tell whose run it belongs to, so no run is marked failed for it\n/,
      );
      const run = await runCli(queued("top", "top.json"), topLevel.dir);
      expect(run.code).toBe(0);
      expect(worker.child.exitCode).toBeNull();
    } finally {
      await stopAll([worker]);
    }
  }, 60_000);

  it("--no-supervise: a case that calls process.exit(3) ends the worker, which names its job and says the queue takes it back", async () => {
    const worker = await startWorker(exiting.dir, redis.url, "exits-here", join(exiting.dir, "m"), {
      args: ["--concurrency", "1", "--no-supervise"],
    });
    const { child, ended } = startCli(
      queued("exits-here", "here.json", ["--grace", "0"]),
      exiting.dir,
    );
    try {
      expect(await worker.exited).toBe(1);
      expect(worker.stderr()).toMatch(
        /niceeval worker: code loaded by the worker called process\.exit\(3\) at .*exits\.eval\.js.* while it ran job \S+\/exits\/c\/0 \(eval "exits", case "c"\); the worker exits \(exit 1\), and the queue takes back its job once the lock expires \(--lock-duration\), for another worker to run/,
      );
      expect(worker.stderr()).not.toContain("report");
    } finally {
      child.kill("SIGINT");
      await ended;
      await stopAll([worker]);
    }
  }, 60_000);

  it("--concurrency bounds the attempts, --timeout errors one that never ends, SIGTERM lets those running finish, and the eval process ends with the worker", async () => {
    const mark = join(slow.dir, "slow.txt");
    const worker = await startWorker(slow.dir, redis.url, "slow", mark);
    let second: Awaited<ReturnType<typeof startWorker>> | undefined;
    try {
      const run = startCli(queued("slow", "slow.json", ["--timeout", "1500"]), slow.dir).ended;
      // Once two attempts run, the worker is asked to stop: it finishes them and takes no more.
      while (readStarts(mark).length < 2) await new Promise((r) => setTimeout(r, 10));
      worker.child.kill("SIGTERM");
      expect(await worker.exited).toBe(0);
      const [first] = readStarts(mark);
      const evalPid = Number(first!.pid);
      expect(evalPid).not.toBe(worker.child.pid);
      // Its eval process ended with it.
      expect(alive(evalPid)).toBe(false);
      const before = readStarts(mark);
      for (const start of before.filter((s) => !s.caseId.endsWith("-end")))
        if (start.caseId !== "hang")
          expect(before.map((s) => s.caseId)).toContain(`${start.caseId}-end`);

      second = await startWorker(slow.dir, redis.url, "slow", mark);
      const result = await untilWorkerDies(run, second.exited);
      expect(result.code).toBe(1);
      const records = report(slow.dir, "slow.json").records;
      expect(records.map((r) => [r.caseId, r.verdict])).toEqual([
        ...Array.from({ length: 6 }, (_, i) => [`c${i}`, "passed"]),
        ["hang", "errored"],
      ]);
      expect(records[6]?.error?.message).toMatch(/timed out after 1500 ms/);
      // Each case ran once, never more than two at a time (--concurrency 2).
      const starts = readStarts(mark).filter((s) => !s.caseId.endsWith("-end"));
      expect(starts.map((s) => s.caseId).sort()).toEqual(
        ["c0", "c1", "c2", "c3", "c4", "c5", "hang"].sort(),
      );
      const events = readStarts(mark).sort((a, b) => a.at - b.at);
      let running = 0;
      let peak = 0;
      for (const event of events) {
        if (event.caseId === "hang") continue;
        running += event.caseId.endsWith("-end") ? -1 : 1;
        peak = Math.max(peak, running);
      }
      expect(peak).toBeLessThanOrEqual(2);
    } finally {
      await stopAll(second ? [worker, second] : [worker]);
    }
  }, 90_000);
});
