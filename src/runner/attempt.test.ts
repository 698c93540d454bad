import { describe, expect, it } from "vitest";
import type { AttemptRecord } from "../eval/record.js";
import { bindScorer, defineSuite } from "../eval/suite.js";
import { createScorer } from "../scorers/create-scorer.js";
import { evalScorersProvider, exactMatchTool } from "../scorers/deterministic/index.js";
import { interruptible } from "../supervisor/interruptible.js";
import { type AttemptJob, type Executor, inProcessExecutor, isPromise } from "./executor.js";
import { runEvals } from "./run.js";

// A built-in tool scorer answers synchronously, and so does a createScorer scorer whose callback
// returns a plain result.
const same = bindScorer<number, { actual: string; expected: string }>({
  id: "same",
  tool: exactMatchTool,
  driver: evalScorersProvider,
  mapInput: ({ output, expected }) => ({ actual: String(output), expected: String(expected) }),
});
const numbered = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: `c${i}`, input: i, expected: i }));

/** The in-process executor, counting which of its two ways each attempt took. */
function countingExecutor(inner: typeof inProcessExecutor) {
  const seen = { now: 0, answeredAtOnce: 0, execute: 0 };
  const executor: Executor = {
    execute(job) {
      seen.execute++;
      return inner.execute(job);
    },
    executeNow(job: AttemptJob) {
      seen.now++;
      const out = inner.executeNow(job);
      if (!isPromise(out)) seen.answeredAtOnce++;
      return out;
    },
  };
  return { executor, seen };
}

describe("attempts that answer at once (executeNow)", () => {
  it("take a synchronous suite's records without a promise, in case order", async () => {
    const suite = defineSuite<number, number>({
      id: "sync",
      cases: numbered(300),
      target: (i) => (i % 7 === 0 ? -1 : i),
      scorers: [same],
    });
    const { executor, seen } = countingExecutor(inProcessExecutor);
    const records: AttemptRecord[] = [];
    const summary = await runEvals([{ eval: suite }], {
      executor,
      onRecord: (r) => records.push(r),
    });
    expect(seen).toEqual({ now: 300, answeredAtOnce: 300, execute: 0 });
    expect(records.map((r) => r.caseId)).toEqual(numbered(300).map((c) => c.id));
    expect(summary.totals.failed).toBe(43);
    expect(summary.totals.passed).toBe(257);
  });

  it("take them at once from createScorer scorers whose callbacks answer synchronously", async () => {
    const run = async (score: (n: number, expected: unknown) => number | Promise<number>) => {
      const equal = createScorer<number, number>({
        name: "equal",
        score: ({ output, expected }) => {
          const value = score(output, expected);
          return typeof value === "number" ? { score: value } : value.then((v) => ({ score: v }));
        },
      });
      // A config factory, resolved once per run, answers at once as well.
      const positive = createScorer<number, number>(() => ({
        name: "positive",
        score: ({ output }) => ({ score: output >= 0 ? 1 : 0 }),
      }));
      const suite = defineSuite<number, number>({
        id: "named",
        cases: numbered(200),
        target: (i) => (i % 5 === 0 ? -1 : i),
        scorers: [equal, positive],
      });
      const { executor, seen } = countingExecutor(inProcessExecutor);
      const records: AttemptRecord[] = [];
      await runEvals([{ eval: suite }], { executor, onRecord: (r) => records.push(r) });
      return { seen, verdicts: records.map((r) => `${r.caseId}:${r.verdict}`) };
    };
    const sync = await run((n, expected) => (n === expected ? 1 : 0));
    const later = await run(async (n, expected) => (n === expected ? 1 : 0));
    expect(sync.seen).toEqual({ now: 200, answeredAtOnce: 200, execute: 0 });
    expect(later.seen).toEqual({ now: 200, answeredAtOnce: 0, execute: 0 });
    expect(later.verdicts).toEqual(sync.verdicts);
    expect(sync.verdicts.filter((v) => v.endsWith(":failed"))).toHaveLength(40);
  });

  it("still wait for an asynchronous target, and time out one that never answers", async () => {
    const suite = defineSuite<number, number>({
      id: "async",
      cases: numbered(3),
      target: (i) => (i === 1 ? new Promise<number>(() => {}) : Promise.resolve(i)),
      scorers: [same],
    });
    const { executor, seen } = countingExecutor(inProcessExecutor);
    const records: AttemptRecord[] = [];
    await runEvals([{ eval: suite }], {
      executor,
      caseTimeoutMs: 50,
      onRecord: (r) => records.push(r),
    });
    expect(seen.now).toBe(3);
    expect(seen.answeredAtOnce).toBe(0);
    expect(records.map((r) => r.verdict)).toEqual(["passed", "errored", "passed"]);
    expect(records[1]!.error?.message).toMatch(
      /did not settle within the last-resort limit of 50 ms/,
    );
  });

  it("make a record of an executor that throws instead of answering", async () => {
    const suite = defineSuite<number, number>({
      id: "throws",
      cases: numbered(2),
      target: (i) => i,
      scorers: [same],
    });
    const executor: Executor = {
      execute: () => Promise.reject(new Error("unused")),
      executeNow(job) {
        if (job.spec.id === "c1") throw new Error("executor broke");
        return inProcessExecutor.executeNow(job);
      },
    };
    const records: AttemptRecord[] = [];
    await runEvals([{ eval: suite }], { executor, onRecord: (r) => records.push(r) });
    expect(records.map((r) => r.verdict)).toEqual(["passed", "errored"]);
    expect(records[1]!.error?.message).toMatch(/crashed on case "c1": executor broke/);
  });

  it("are given back at once through interruptible, and ended at once after an interrupt", async () => {
    const suite = defineSuite<number, number>({
      id: "wrapped",
      cases: numbered(2),
      target: (i) => (i === 0 ? i : new Promise<number>(() => {})),
      scorers: [same],
    });
    const executor = interruptible(inProcessExecutor);
    const job = (index: number): AttemptJob => ({
      entry: { eval: suite },
      spec: { id: `c${index}`, index, input: index, expected: index },
      trial: 0,
      context: { runId: "r", signal: new AbortController().signal },
    });
    const first = executor.executeNow!(job(0));
    expect(isPromise(first)).toBe(false);
    expect((first as AttemptRecord).verdict).toBe("passed");
    const hanging = executor.executeNow!(job(1));
    expect(isPromise(hanging)).toBe(true);
    executor.interrupt("stopped by the test");
    expect((await hanging).error?.message).toBe("stopped by the test");
    const after = executor.executeNow!(job(0));
    expect(isPromise(after)).toBe(false);
    expect((after as AttemptRecord).error?.message).toBe("stopped by the test");
  });
});
