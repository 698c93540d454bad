import { describe, expect, it } from "vitest";
import type { AttemptRecord } from "../eval/record.js";
import { defineSuite } from "../eval/suite.js";
import { createScorer } from "../scorers/create-scorer.js";
import { type AttemptJob, type Executor, inProcessExecutor } from "./executor.js";
import { runEvals } from "./run.js";
import { crashed } from "./source.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ran = createScorer({ name: "ran", score: () => ({ score: 1 }) });

/**
 * An executor that asks for attempts ahead, as one in another process does: it queues what it is
 * handed and starts at most the run's concurrency at once, in order, saying when each starts.
 */
function queueingExecutor(prefetch: number) {
  const queue: { job: AttemptJob; resolve: (record: AttemptRecord) => void }[] = [];
  const seen = { handed: 0, peakHanded: 0, running: 0, peakRunning: 0, jobs: [] as AttemptJob[] };
  const pump = () => {
    while (queue.length > 0 && seen.running < queue[0]!.job.queue!.concurrency) {
      const { job, resolve } = queue.shift()!;
      seen.running++;
      seen.peakRunning = Math.max(seen.peakRunning, seen.running);
      job.queue!.started();
      void inProcessExecutor.execute(job).then((record) => {
        seen.running--;
        seen.handed--;
        resolve(record);
        pump();
      });
    }
  };
  const executor: Executor = {
    prefetch,
    execute(job) {
      seen.jobs.push(job);
      seen.handed++;
      seen.peakHanded = Math.max(seen.peakHanded, seen.handed);
      return new Promise<AttemptRecord>((resolve) => {
        queue.push({ job, resolve });
        pump();
      });
    },
  };
  return { executor, seen };
}

const numbered = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `c${i}`, input: i }));

describe("an executor that asks for attempts ahead (prefetch)", () => {
  it("is handed concurrency + prefetch attempts at once, each with the run's concurrency", async () => {
    const suite = defineSuite<number, number>({
      id: "ahead",
      cases: numbered(40),
      target: async (i) => {
        await sleep(2);
        return i;
      },
      scorers: [ran],
    });
    const { executor, seen } = queueingExecutor(10);
    const order: string[] = [];
    const summary = await runEvals([{ eval: suite }], {
      concurrency: 3,
      executor,
      reporters: [{ onCaseFinished: (r) => order.push(r.caseId) }],
    });
    expect(summary.totals).toMatchObject({ cases: 40, passed: 40 });
    expect(seen.peakHanded).toBe(13);
    expect(seen.peakRunning).toBe(3);
    expect(seen.jobs.every((job) => job.queue?.concurrency === 3)).toBe(true);
    expect(order).toEqual(numbered(40).map((c) => c.id));
  });

  it("gets no queue (and no more attempts) when it asks for none", async () => {
    const suite = defineSuite<number, number>({
      id: "plain",
      cases: numbered(5),
      target: (i) => i,
      scorers: [ran],
    });
    const jobs: AttemptJob[] = [];
    await runEvals([{ eval: suite }], {
      concurrency: 2,
      executor: {
        execute: (job) => {
          jobs.push(job);
          return inProcessExecutor.execute(job);
        },
      },
    });
    expect(jobs).toHaveLength(5);
    expect(jobs.some((job) => job.queue !== undefined)).toBe(false);
  });

  it("counts an attempt's time limit from when it starts, not from when it was queued", async () => {
    // One at a time, 40 ms each: the last of six waits about 200 ms in the queue, twice the limit.
    const suite = defineSuite<number, number>({
      id: "queued",
      cases: numbered(6),
      target: async (i) => {
        await sleep(40);
        return i;
      },
      scorers: [ran],
    });
    const { executor } = queueingExecutor(8);
    const records: AttemptRecord[] = [];
    await runEvals([{ eval: suite }], {
      concurrency: 1,
      caseTimeoutMs: 100,
      executor,
      onRecord: (r) => records.push(r),
    });
    expect(records.map((r) => r.verdict)).toEqual(Array(6).fill("passed"));
  });

  it("still times out an attempt that started and never settles, and the ones queued behind it run", async () => {
    const suite = defineSuite<number, number>({
      id: "stuck",
      cases: numbered(3),
      target: (i) => (i === 0 ? new Promise<number>(() => {}) : i),
      scorers: [ran],
    });
    // Concurrency 2: the stuck attempt holds one slot for good, the rest pass through the other.
    const { executor } = queueingExecutor(4);
    const records: AttemptRecord[] = [];
    await runEvals([{ eval: suite }], {
      concurrency: 2,
      caseTimeoutMs: 50,
      executor,
      onRecord: (r) => records.push(r),
    });
    expect(records.map((r) => r.verdict)).toEqual(["errored", "passed", "passed"]);
    expect(records[0]?.error?.message).toContain(
      "did not settle within the last-resort limit of 50 ms",
    );
    expect(records[0]?.elapsedMs).toBeGreaterThanOrEqual(45);
  });

  it("fires onAttemptStarted when the executor starts an attempt, and for one it never started", async () => {
    const suite = defineSuite<number, number>({
      id: "hooks",
      cases: numbered(4),
      target: (i) => i,
      scorers: [ran],
    });
    const events: string[] = [];
    const jobs: AttemptJob[] = [];
    const executor: Executor = {
      prefetch: 4,
      execute(job) {
        jobs.push(job);
        events.push(`handed ${job.spec.id}`);
        // c0 and c1 start; c2 is ended without starting (an interrupt before it started).
        if (job.spec.id === "c2") {
          return Promise.resolve(
            crashed({ id: "hooks" }, job.spec, "interrupted before the attempt started"),
          );
        }
        return sleep(5).then(() => {
          job.queue!.started();
          events.push(`started ${job.spec.id}`);
          return inProcessExecutor.execute(job);
        });
      },
    };
    await runEvals([{ eval: suite }], {
      concurrency: 1,
      executor,
      reporters: [
        { onAttemptStarted: (a) => events.push(`hook ${a.caseId}`) },
        { onAttemptFinished: (r) => events.push(`finished ${r.caseId}`) },
      ],
    });
    // Every attempt is handed over before any starts (1 + 4 ahead covers all four).
    expect(events.slice(0, 4)).toEqual(["handed c0", "handed c1", "handed c2", "handed c3"]);
    for (const id of ["c0", "c1", "c3"]) {
      expect(events.indexOf(`hook ${id}`)).toBe(events.indexOf(`started ${id}`) - 1);
    }
    expect(events.indexOf("hook c2")).toBeGreaterThan(-1);
    expect(events.indexOf("hook c2")).toBeLessThan(events.indexOf("finished c2"));
    expect(events.filter((e) => e.startsWith("hook"))).toHaveLength(4);
  });

  it("still caps an eval with its own concurrency at that many handed over", async () => {
    const suite = defineSuite<number, number>({
      id: "capped",
      concurrency: 2,
      cases: numbered(12),
      target: async (i) => {
        await sleep(2);
        return i;
      },
      scorers: [ran],
    });
    const { executor, seen } = queueingExecutor(16);
    const summary = await runEvals([{ eval: suite }], { concurrency: 8, executor });
    expect(summary.totals.passed).toBe(12);
    expect(seen.peakHanded).toBe(2);
  });

  it("leaves out the attempts still queued when the run is stopped: they did not run", async () => {
    const controller = new AbortController();
    const suite = defineSuite<number, number>({
      id: "stopped",
      cases: numbered(20),
      target: async (i) => {
        // The second attempt stops the run while it runs; it still finishes, cut off.
        if (i === 1) controller.abort(new Error("interrupted by SIGINT"));
        await sleep(1);
        return i;
      },
      scorers: [ran],
    });
    const queue: { job: AttemptJob; resolve: (record: AttemptRecord) => void }[] = [];
    let running = 0;
    const pump = () => {
      while (queue.length > 0 && running < 1) {
        const { job, resolve } = queue.shift()!;
        // What a queueing executor does after an abort: ends what waits, without starting it.
        if (job.context.signal.aborted) {
          resolve(
            crashed(
              { id: "stopped" },
              job.spec,
              "interrupted by SIGINT before the attempt started",
            ),
          );
          continue;
        }
        running++;
        job.queue!.started();
        void inProcessExecutor.execute(job).then((record) => {
          running--;
          resolve(record);
          pump();
        });
      }
    };
    const executor: Executor = {
      prefetch: 8,
      execute: (job) =>
        new Promise((resolve) => {
          queue.push({ job, resolve });
          pump();
        }),
    };
    const seen: string[] = [];
    const started: string[] = [];
    const summary = await runEvals([{ eval: suite }], {
      concurrency: 1,
      executor,
      signal: controller.signal,
      reporters: [
        { onAttemptStarted: (a) => started.push(a.caseId) },
        { onCaseFinished: (r) => seen.push(`${r.caseId}:${r.verdict}`) },
      ],
    });
    // c1 was running when the run stopped: its verdict is not kept, and a resume runs it again.
    expect(seen).toEqual(["c0:passed", "c1:errored"]);
    expect(started).toEqual(["c0", "c1"]);
    expect(summary.cancelled).toBe(true);
    expect(summary.totals.cases).toBe(2);
    expect(summary.evals[0]?.cases).toBe(2);
  });
});
