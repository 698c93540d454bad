import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/eval/record.js";
import { defineSuite } from "../../src/eval/suite.js";
import { runEvals } from "../../src/runner/run.js";
import type { RunSink } from "../../src/runner/sink.js";
import { createScorer } from "../../src/scorers/create-scorer.js";
import { openSqliteStore } from "../../src/store/index.js";
import { storeSink } from "../../src/store/sink.js";
import type { Store } from "../../src/store/types.js";
import { attempt, manifest } from "./fixtures.js";

// A store slower than the run: appends wait at a gate the test opens, then go to a real SQLite
// file. The sink must make the run wait instead of holding every record.

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function gatedStore(): Promise<{ store: Store; open(): void; appends(): number }> {
  const dir = await mkdtemp(join(tmpdir(), "niceeval-sink-"));
  const real = await openSqliteStore(join(dir, "store.sqlite"));
  cleanups.push(async () => {
    await real.close();
    await rm(dir, { recursive: true, force: true });
  });
  let opened!: () => void;
  const gate = new Promise<void>((resolve) => {
    opened = resolve;
  });
  let appends = 0;
  const store: Store = {
    location: real.location,
    beginRun: (...args) => real.beginRun(...args),
    appendAttempts: async (runId, records) => {
      await gate;
      appends++;
      return real.appendAttempts(runId, records);
    },
    finishRun: (...args) => real.finishRun(...args),
    listRuns: (...args) => real.listRuns(...args),
    getRun: (...args) => real.getRun(...args),
    streamAttempts: (...args) => real.streamAttempts(...args),
    queryAttempts: (...args) => real.queryAttempts(...args),
    attemptKeys: (...args) => real.attemptKeys(...args),
    attemptHistory: (...args) => real.attemptHistory(...args),
    close: () => real.close(),
  };
  return { store, open: opened, appends: () => appends };
}

const ran = createScorer({ name: "ran", score: () => ({ score: 1 }) });

describe("storeSink backpressure", () => {
  it("asks the run to wait once its backlog is full, and lets it go when the store takes it", async () => {
    const { store, open } = await gatedStore();
    const sink = storeSink(store, manifest("run-a"), { batch: 2, backlog: 4, flushMs: 5 });
    await sink.ready;
    for (let i = 0; i < 3; i++) sink.onAttemptFinished?.(attempt("alpha", i) as AttemptRecord);
    expect(sink.room?.()).toBeUndefined();
    sink.onAttemptFinished?.(attempt("alpha", 3) as AttemptRecord);
    const wait = sink.room?.();
    expect(wait).toBeInstanceOf(Promise);
    // The same wait for every worker that asks while the backlog stays full.
    expect(sink.room?.()).toBe(wait);
    let released = false;
    void wait?.then(() => {
      released = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(released).toBe(false);
    open();
    await wait;
    expect(sink.room?.()).toBeUndefined();
    await sink.onRunFinished?.({
      runId: "run-a",
      startedAt: new Date().toISOString(),
      elapsedMs: 1,
      cancelled: false,
      evals: [],
    } as never);
    const stored = await store.queryAttempts("run-a", {});
    expect(stored.total).toBe(4);
  });

  it("holds the run's attempts to the backlog while the store is slow, and stores every one", async () => {
    const { store, open, appends } = await gatedStore();
    let calls = 0;
    const suite = defineSuite<number, number>({
      id: "alpha",
      cases: Array.from({ length: 200 }, (_, i) => ({ id: `c${i}`, input: i })),
      target: (i) => {
        calls++;
        return i;
      },
      scorers: [ran],
    });
    const sink = storeSink(store, manifest("run-b"), { batch: 8, backlog: 16, flushMs: 5 });
    await sink.ready;
    const run = runEvals([{ eval: suite }], { runId: "run-b", concurrency: 4, reporters: [sink] });
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The backlog (16) and at most one attempt per worker past it: not the 200 cases.
    expect(calls).toBeGreaterThanOrEqual(16);
    expect(calls).toBeLessThanOrEqual(16 + 4);
    expect(appends()).toBe(0);
    open();
    const summary = await run;
    expect(summary.totals.cases).toBe(200);
    expect(calls).toBe(200);
    expect((await store.queryAttempts("run-b", {})).total).toBe(200);
  });

  it("stops waiting for a stalled sink once the run is stopped", async () => {
    let seen = 0;
    let stalls = 0;
    const stalled: RunSink = {
      onAttemptFinished: () => {
        seen++;
      },
      // Full after five records, and never drained.
      room: () => {
        if (seen < 5) return undefined;
        stalls++;
        return new Promise<void>(() => {});
      },
    };
    const controller = new AbortController();
    const suite = defineSuite<number, number>({
      id: "alpha",
      cases: Array.from({ length: 100 }, (_, i) => ({ id: `c${i}`, input: i })),
      target: (i) => i,
      scorers: [ran],
    });
    const run = runEvals([{ eval: suite }], {
      concurrency: 2,
      reporters: [stalled],
      signal: controller.signal,
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen).toBeLessThanOrEqual(5 + 2);
    expect(stalls).toBeGreaterThan(0);
    controller.abort();
    const summary = await run;
    expect(summary.cancelled).toBe(true);
    expect(seen).toBeLessThan(100);
  });

  it("with beginWithAttempts, writes the run when its first attempt starts, and not at all when it ran none", async () => {
    const { store, open } = await gatedStore();
    open();
    const suite = defineSuite<number, number>({
      id: "alpha",
      cases: Array.from({ length: 30 }, (_, i) => ({ id: `c${i}`, input: i })),
      target: (i) => i,
      scorers: [ran],
    });
    const run = async (runId: string, selected: boolean) => {
      const sink = storeSink(store, manifest(runId), { beginWithAttempts: true, flushMs: 5 });
      await sink.ready;
      // Nothing written before an attempt is.
      expect(await store.getRun(runId)).toBeUndefined();
      return runEvals([{ eval: suite }], { runId, reporters: [sink], filter: () => selected });
    };
    // A filter that selected nothing.
    expect((await run("empty", false)).totals.cases).toBe(0);
    expect(await store.getRun("empty")).toBeUndefined();
    await run("some", true);
    // Written when its first attempt starts, before any attempt is: a killed run is listed.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const held = defineSuite<number, number>({
      id: "alpha",
      cases: [{ id: "c0", input: 0 }],
      target: async (i) => {
        await gate;
        return i;
      },
      scorers: [ran],
    });
    const sink = storeSink(store, manifest("held"), { beginWithAttempts: true, flushMs: 5 });
    const heldRun = runEvals([{ eval: held }], { runId: "held", reporters: [sink] });
    for (let i = 0; i < 100 && !(await store.getRun("held")); i++)
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await store.getRun("held"))?.status).toBe("running");
    expect((await store.queryAttempts("held", {})).total).toBe(0);
    release();
    await heldRun;
    expect((await store.getRun("held"))?.status).toBe("finished");
    expect((await store.getRun("some"))?.status).toBe("finished");
    expect((await store.queryAttempts("some", {})).total).toBe(30);
  });
});
