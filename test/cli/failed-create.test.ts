import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/eval/record.js";
import { openSqliteStore } from "../../src/store/index.js";
import {
  type FixtureProject,
  makeProject,
  readJsonRecords,
  runAndSignal,
  runCli,
} from "../support/project.js";

// Adapters whose create reports usage and traces a step, then fails: it throws, it runs past
// the eval's time limit (reporting more after it, which is not the record's), or it reports
// only part of its usage before it throws. The last one's facts shadow t.usage (errored after
// create, not in it): its trace is kept too.
const failing = `
import { defineAdapter } from "niceeval";
import { atMost } from "niceeval/expect";

const throwing = defineAdapter({
  name: "throwagent",
  create: async (ctx) => {
    ctx.reportUsage({ inputTokens: 1200, outputTokens: 800, costUsd: 0.05 });
    ctx.trace.toolCall("search", { q: "x" }, { output: "3 hits" });
    throw new Error("step 4: tool 'book' returned 502");
  },
  assertions: () => ({}),
});
export const throws = throwing.defineScoreEval({ id: "throws", description: "t", test(t) {
  t.check(t.usage.totalTokens, atMost(10_000)).gate().label("budget");
} });

const slow = defineAdapter({
  name: "slowagent",
  create: async (ctx) => {
    ctx.reportUsage({ inputTokens: 100, costUsd: 0.001 });
    ctx.trace.message("assistant", "thinking");
    await new Promise((resolve) => setTimeout(resolve, 1500));
    ctx.reportUsage({ outputTokens: 500, costUsd: 0.002 });
    ctx.trace.toolCall("late-tool", {}, { output: "late" });
    return {};
  },
});
export const late = slow.defineScoreEval({ id: "late", description: "l", timeoutMs: 300, test() {} });

const shadowing = defineAdapter({
  name: "shadowing",
  create: (ctx) => {
    ctx.reportUsage({ inputTokens: 7, outputTokens: 3 });
    ctx.trace.toolCall("lookup", { id: 1 }, { output: "found" });
    return { usage: { totalTokens: 10 } };
  },
});
export const shadowed = shadowing.defineScoreEval({ id: "shadowed", description: "s", test() {} });
`;

// A create that reports usage, traces a step, then waits until the run's stop aborts it.
const stopping = `
import { defineAdapter } from "niceeval";

const waiting = defineAdapter({
  name: "waitagent",
  create: async (ctx) => {
    ctx.reportUsage({ inputTokens: 40, outputTokens: 2, costUsd: 0.003 });
    ctx.trace.toolCall("search", { q: "y" }, { output: "2 hits" });
    console.error("TARGET-STARTED");
    await new Promise((_, reject) =>
      ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true }),
    );
  },
});
export const stopped = waiting.defineScoreEval({ id: "stopped", description: "w", test() {} });
`;

const available = (value: number) => ({ state: "available", value });

function byEval(records: readonly AttemptRecord[], evalId: string): AttemptRecord {
  const record = records.find((r) => r.evalId === evalId);
  if (!record) throw new Error(`no record of eval "${evalId}" among ${records.length}`);
  return record;
}

/** The attempts the store holds of its only run. */
async function storedRecords(path: string): Promise<AttemptRecord[]> {
  const store = await openSqliteStore(path);
  try {
    const [run] = await store.listRuns();
    const records: AttemptRecord[] = [];
    for await (const record of store.streamAttempts(run!.runId)) records.push(record);
    return records;
  } finally {
    await store.close();
  }
}

describe("a score eval whose create fails keeps the usage and trace it reported (real CLI)", {
  timeout: 60_000,
}, () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({
      "evals/failing.eval.mjs": failing,
      "stopping/stopping.eval.mjs": stopping,
    });
  });
  afterAll(() => project.cleanup());

  for (const mode of [[], ["--no-supervise"]] as const) {
    const label = mode.length ? "in process" : "supervised";

    it(`${label}: create that throws or times out`, async () => {
      const json = `failing-${label}.json`;
      const store = `failing-${label}.sqlite`;
      const run = await runCli(
        ["run", "evals", ...mode, "--json", json, "--store", store],
        project.dir,
      );
      expect(run.code, run.stderr).toBe(1);
      for (const records of [
        await readJsonRecords(project.dir, json),
        await storedRecords(join(project.dir, store)),
      ]) {
        const thrown = byEval(records, "throws");
        expect(thrown.verdict).toBe("errored");
        expect(thrown.error?.message).toMatch(/step 4: tool 'book' returned 502/);
        expect(thrown.usage.app).toEqual({
          inputTokens: available(1200),
          outputTokens: available(800),
          totalTokens: available(2000),
          costUsd: available(0.05),
        });
        expect(thrown.trace).toEqual({
          steps: [{ kind: "tool-call", name: "search", input: { q: "x" }, output: "3 hits" }],
        });

        // What came before the limit; the later report and step are not the record's.
        const timedOut = byEval(records, "late");
        expect(timedOut.verdict).toBe("errored");
        expect(timedOut.error?.message).toMatch(/create timed out after 300 ms/);
        expect(timedOut.usage.app.inputTokens).toEqual(available(100));
        expect(timedOut.usage.app.costUsd).toEqual(available(0.001));
        expect(timedOut.usage.app.outputTokens).toEqual({
          state: "unavailable",
          reason:
            'usage-unreported: the adapter had not reported outputTokens (ctx.reportUsage) when create of adapter "slowagent" (eval "late") failed',
        });
        expect(timedOut.trace).toEqual({
          steps: [{ kind: "message", role: "assistant", content: "thinking" }],
        });

        const shadow = byEval(records, "shadowed");
        expect(shadow.verdict).toBe("errored");
        expect(shadow.usage.app.totalTokens).toEqual(available(10));
        expect(shadow.trace?.steps).toEqual([
          { kind: "tool-call", name: "lookup", input: { id: 1 }, output: "found" },
        ]);
      }
    });

    it(`${label}: create that rejects when SIGINT stops the run`, async () => {
      const json = `stopping-${label}.json`;
      const store = `stopping-${label}.sqlite`;
      const run = await runAndSignal(
        ["run", "stopping", ...mode, "--json", json, "--store", store],
        project.dir,
        ["SIGINT"],
      );
      expect(run.code, run.stderr).toBe(130);
      for (const records of [
        await readJsonRecords(project.dir, json),
        await storedRecords(join(project.dir, store)),
      ]) {
        const stopped = byEval(records, "stopped");
        expect(stopped.verdict).toBe("errored");
        expect(stopped.error).toMatchObject({
          interrupted: true,
          message: expect.stringContaining("interrupted by SIGINT"),
        });
        expect(stopped.usage.app).toEqual({
          inputTokens: available(40),
          outputTokens: available(2),
          totalTokens: available(42),
          costUsd: available(0.003),
        });
        expect(stopped.trace?.steps).toEqual([
          { kind: "tool-call", name: "search", input: { q: "y" }, output: "2 hits" },
        ]);
      }
    });
  }
});
