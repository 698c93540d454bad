import { hostname } from "node:os";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { NiceevalError } from "../../src/errors.js";
import type { AttemptRecord, JudgmentState, Verdict } from "../../src/eval/record.js";
import { resolveRunRef } from "../../src/store/resolve.js";
import {
  type AttemptQuery,
  isTruncated,
  type ReplacedAttempt,
  type Store,
} from "../../src/store/types.js";
import { thisWriter } from "../../src/store/writer.js";
import { attempt, judgment, manifest, summary } from "./fixtures.js";

/** How a backend's test opens a fresh, empty store, and removes it afterwards. */
export type OpenStore = () => Promise<{ store: Store; cleanup(): Promise<void> }>;

const judgeSpend = {
  calls: 1,
  cachedCalls: 0,
  retries: 2,
  inputTokens: 120,
  outputTokens: 40,
  latencyMs: 830,
};

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();

async function collect(iterable: AsyncIterable<AttemptRecord>): Promise<AttemptRecord[]> {
  const out: AttemptRecord[] = [];
  for await (const record of iterable) out.push(record);
  return out;
}

async function collectHistory(store: Store, runId: string): Promise<ReplacedAttempt[]> {
  const out: ReplacedAttempt[] = [];
  try {
    for await (const item of store.attemptHistory(runId)) out.push(item);
  } catch (error) {
    // A run that does not exist has no history.
    if ((error as NiceevalError).code !== "RUN_NOT_FOUND") throw error;
  }
  return out;
}

const keys = (records: readonly AttemptRecord[]) =>
  records.map((r) => `${r.evalId}/${r.caseId}/${r.trial}`);

async function thrown(promise: Promise<unknown>): Promise<NiceevalError> {
  try {
    await promise;
  } catch (error) {
    // By shape, not class: a store loaded from the built package throws that package's class.
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: "NiceevalError", code: expect.any(String) });
    return error as NiceevalError;
  }
  throw new Error("expected a NiceevalError");
}

/**
 * The contract every {@link Store} backend keeps. Each backend's test calls this once with a way
 * to open a fresh store; the tests say nothing of how the backend stores anything.
 */
export function defineStoreSuite(name: string, open: OpenStore): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      ({ store, cleanup } = await open());
    });
    afterEach(async () => {
      await store.close();
      await cleanup();
    });

    describe("attempts", () => {
      it("round-trips a full record: judgments with detail, trace, usage, values", async () => {
        await store.beginRun(manifest("run-full"));
        const big = { document: "lorem ipsum ".repeat(400), pages: [1, 2, 3] };
        const record: AttemptRecord = {
          evalId: "alpha",
          caseId: "order-42",
          trial: 2,
          index: 7,
          cluster: "doc-1",
          verdict: "errored",
          score: { state: "partial", earned: 1.5, max: 4, reasons: ["judge unavailable"] },
          judgments: [
            {
              label: "At least one delivery",
              source: "t.check",
              state: "matched",
              gate: false,
              points: 2,
              earned: 1.5,
              value: 0.75,
              reason: 'found "delivery" in 3 of 4',
              detail: { tree: { kind: "some", children: [{ ok: true }] } },
            },
            {
              label: "judged",
              source: "t.closeQA",
              state: "unavailable",
              gate: true,
              points: 2,
              earned: null,
              value: null,
              reason: "no judge configured",
              detail: { audit: "x".repeat(3000) },
              judge: { ...judgeSpend, costUsd: 0.0012 },
            },
            {
              label: "crash",
              source: "eval.regex-match",
              state: "errored",
              gate: true,
              points: 0,
              earned: null,
              reason: "scorer threw: bad pattern",
            },
          ],
          usage: {
            app: {
              inputTokens: { state: "available", value: 310 },
              outputTokens: { state: "available", value: 92 },
              totalTokens: { state: "available", value: 402 },
              costUsd: { state: "unavailable", reason: "no price table" },
            },
            judge: judgeSpend,
          },
          elapsedMs: 1234.5678,
          error: { message: "target timed out", where: "target" },
          output: { text: "ok", items: [null, true, 3.25] },
          input: big,
          expected: null,
          metadata: { source: "crm", tags: ["x"] },
          trace: {
            steps: [
              { kind: "message", role: "user", content: "where is my order?" },
              { kind: "tool-call", name: "lookup", input: { id: 42 }, output: { found: true } },
              { kind: "tool-call", name: "ship", input: { id: 42 }, error: "refused" },
            ],
          },
        };
        await store.appendAttempts("run-full", [record]);
        const [back] = await collect(store.streamAttempts("run-full"));
        expect(back).toEqual(record);
        const page = await store.queryAttempts("run-full");
        expect(page.items[0]).toEqual(record);
      });

      it("sets trial and index on records appended without them, and keeps skip reasons", async () => {
        await store.beginRun(manifest("run-min"));
        const { trial: _t, index: _i, ...bare } = attempt("alpha", 0);
        const skipped: AttemptRecord = {
          ...bare,
          caseId: "case-s",
          verdict: "skipped",
          skipReason: "not on CI",
        };
        await store.appendAttempts("run-min", [bare, skipped]);
        const back = await collect(store.streamAttempts("run-min"));
        expect(back).toEqual([
          { ...bare, trial: 0, index: 0 },
          { ...skipped, trial: 0, index: 1 },
        ]);
      });

      it("keeps the last of the same (eval, case, trial) appended twice, without duplicating", async () => {
        await store.beginRun(manifest("run-twice"));
        await store.appendAttempts("run-twice", [
          attempt("alpha", 0, { verdict: "failed" }),
          attempt("alpha", 1),
        ]);
        await store.appendAttempts("run-twice", [attempt("alpha", 0, { verdict: "passed" })]);
        // Twice in one batch, too.
        await store.appendAttempts("run-twice", [
          attempt("alpha", 1, { verdict: "errored" }),
          attempt("alpha", 1, { verdict: "failed" }),
        ]);
        const back = await collect(store.streamAttempts("run-twice"));
        expect(back.map((r) => [r.caseId, r.verdict])).toEqual([
          ["case-0", "passed"],
          ["case-1", "failed"],
        ]);
        const run = await store.getRun("run-twice");
        expect(run?.totals).toMatchObject({
          attempts: 2,
          cases: 2,
          passed: 1,
          failed: 1,
          errored: 0,
        });
        expect((await store.queryAttempts("run-twice")).total).toBe(2);
        // What the replaced attempt said is no longer found.
        expect((await store.queryAttempts("run-twice", { text: "differs from" })).total).toBe(1);
        expect(
          (await store.queryAttempts("run-twice", { text: "actual equals" })).items.map(
            (r) => r.caseId,
          ),
        ).toEqual(["case-0"]);
      });

      it("refuses query options it cannot follow, naming the option, the value and what it takes", async () => {
        await store.beginRun(manifest("queried"));
        await store.appendAttempts("queried", [attempt("qa", 0)]);
        const refused = async (query: object, message: string) => {
          const error = await store
            .queryAttempts("queried", query as AttemptQuery)
            .catch((e: unknown) => e);
          expect(error).toMatchObject({ code: "STORE_QUERY" });
          expect((error as Error).message).toContain(message);
        };
        await refused(
          { sort: "name" },
          'sort must be "case", "score", "elapsed" or "verdict", got "name"',
        );
        await refused({ verdict: "fail" }, 'got "fail" (did you mean "failed"?)');
        await refused({ judgmentState: "failed" }, "judgmentState must be");
        await refused({ order: "down" }, 'order must be "asc" or "desc"');
        await refused(
          { offset: -5 },
          "offset must be a whole number from 0 to 9007199254740991, got -5",
        );
        // 2^63 reached SQLite as a real, which it refused ("datatype mismatch").
        await refused({ offset: 2 ** 63 }, "from 0 to 9007199254740991, got 9223372036854776000");
        await refused({ offset: 1e20 }, "got 100000000000000000000");
        expect((await store.queryAttempts("queried", { offset: 2 ** 53 - 1 })).items).toEqual([]);
        await refused({ limit: "10" }, 'got "10"');
        await refused({ evalID: "qa" }, 'unknown key "evalID" (did you mean "evalId"?)');
        expect((await store.queryAttempts("queried", { limit: 5000 })).total).toBe(1);
      });

      it("finds each attempt of batches mixing new, replaced and repeated ones by its own text", async () => {
        await store.beginRun(manifest("mixed"));
        const marked = (index: number, mark: string, verdict: Verdict = "passed") => ({
          ...attempt("alpha", index, { verdict }),
          output: { text: `${mark}-${index}` },
        });
        // 37 new attempts: two full runs of rows and a remainder, whatever a backend groups.
        await store.appendAttempts(
          "mixed",
          Array.from({ length: 37 }, (_, i) => marked(i, "first")),
        );
        const second = [
          ...Array.from({ length: 23 }, (_, i) => marked(37 + i, "first")),
          marked(3, "replaced", "failed"),
          marked(60, "first"),
          marked(60, "again", "failed"),
          ...Array.from({ length: 18 }, (_, i) => marked(61 + i, "first")),
          marked(36, "replaced", "errored"),
          marked(5, "first"), // the same attempt again: nothing changes
          marked(79, "first"),
        ];
        await store.appendAttempts("mixed", second);
        const found = async (text: string) =>
          (await store.queryAttempts("mixed", { text, limit: 1000 })).items.map((r) => [
            r.caseId,
            r.verdict,
          ]);
        const latest: Record<number, [string, Verdict]> = {
          3: ["replaced", "failed"],
          36: ["replaced", "errored"],
          60: ["again", "failed"],
        };
        for (let i = 0; i < 80; i++) {
          const [mark, verdict] = latest[i] ?? ["first", "passed"];
          expect(await found(`${mark}-${i}`)).toContainEqual([`case-${i}`, verdict]);
        }
        // What a replaced attempt said is no longer found.
        for (const i of [3, 36, 60])
          expect((await found(`first-${i}`)).map(([id]) => id)).not.toContain(`case-${i}`);
        expect((await found("replaced-")).map(([id]) => id)).toEqual(["case-3", "case-36"]);
        expect((await found("again-60")).map(([id]) => id)).toEqual(["case-60"]);
        expect((await store.getRun("mixed"))?.totals).toMatchObject({
          attempts: 80,
          cases: 80,
          passed: 77,
          failed: 2,
          errored: 1,
        });
        const back = await collect(store.streamAttempts("mixed"));
        expect(back.map((r) => r.caseId)).toEqual(
          Array.from({ length: 80 }, (_, i) => `case-${i}`),
        );
        expect(back[3]?.output).toEqual({ text: "replaced-3" });
        expect(back[60]?.output).toEqual({ text: "again-60" });
      });

      it("keeps a value above the cap as its head with its size, marked truncated", async () => {
        await store.beginRun(manifest("run-cap"));
        const huge = "é".repeat(9 * 2 ** 20); // 18 MiB of UTF-8, above the 16 MiB default cap
        const record = { ...attempt("alpha", 0), output: huge };
        await store.appendAttempts("run-cap", [record]);
        const [back] = await collect(store.streamAttempts("run-cap"));
        expect(isTruncated(back?.output)).toBe(true);
        if (!isTruncated(back?.output)) return;
        expect(back.output.bytes).toBe(Buffer.byteLength(JSON.stringify(huge)));
        expect(back.output.head.startsWith('"éé')).toBe(true);
        expect(Buffer.byteLength(back.output.head)).toBeLessThanOrEqual(16 * 2 ** 20);
        expect(Buffer.byteLength(back.output.head)).toBeGreaterThan(16 * 2 ** 20 - 4);
        expect(back.input).toBe(0);
      });

      it("streams in case order (eval order, case index, trial) whatever the append order", async () => {
        await store.beginRun(manifest("run-order", { evals: ["first", "second"] }));
        const records = [
          attempt("second", 1, { trial: 1 }),
          attempt("first", 2, { trial: 0 }),
          attempt("second", 0, { trial: 0 }),
          attempt("first", 0, { trial: 1 }),
          attempt("first", 0, { trial: 0 }),
          attempt("second", 1, { trial: 0 }),
          attempt("first", 10, { trial: 0 }),
        ];
        await store.appendAttempts("run-order", records.slice(0, 3));
        await store.appendAttempts("run-order", records.slice(3));
        expect(keys(await collect(store.streamAttempts("run-order")))).toEqual([
          "first/case-0/0",
          "first/case-0/1",
          "first/case-2/0",
          "first/case-10/0",
          "second/case-0/0",
          "second/case-1/0",
          "second/case-1/1",
        ]);
        expect(
          keys(await collect(store.streamAttempts("run-order", { evalId: "second" }))),
        ).toEqual(["second/case-0/0", "second/case-1/0", "second/case-1/1"]);
        expect(await collect(store.streamAttempts("run-order", { evalId: "nope" }))).toEqual([]);
      });

      it("streams a large run while the same store keeps writing", async () => {
        await store.beginRun(manifest("run-big"));
        await store.beginRun(manifest("run-other"));
        for (let i = 0; i < 3000; i += 500)
          await store.appendAttempts(
            "run-big",
            Array.from({ length: 500 }, (_, k) => attempt("alpha", i + k)),
          );
        let n = 0;
        let ordered = true;
        for await (const record of store.streamAttempts("run-big")) {
          if (record.index !== n) ordered = false;
          if (n % 1000 === 0) await store.appendAttempts("run-other", [attempt("alpha", n)]);
          n++;
        }
        expect(n).toBe(3000);
        expect(ordered).toBe(true);
        expect((await store.getRun("run-other"))?.totals.attempts).toBe(3);
      });

      it("refuses attempts of a run that was never begun", async () => {
        const error = await thrown(store.appendAttempts("ghost", [attempt("alpha", 0)]));
        expect(error.code).toBe("RUN_NOT_FOUND");
        expect(error.message).toMatch(/^no run ghost in .+; call beginRun first\.$/);
      });
    });

    describe("queryAttempts", () => {
      beforeEach(async () => {
        await store.beginRun(manifest("q", { evals: ["alpha", "beta"] }));
        const records: AttemptRecord[] = [];
        for (let i = 0; i < 30; i++)
          records.push(
            attempt("alpha", i, {
              verdict: i % 5 === 0 ? "failed" : "passed",
              elapsedMs: (i * 7) % 30,
            }),
          );
        for (let i = 0; i < 10; i++) {
          const r = attempt("beta", i, { verdict: i === 3 ? "errored" : "passed", earned: i % 5 });
          if (i === 3) {
            r.judgments = [
              { ...judgment("judged", false, "the judge 50%_off crashed"), state: "errored" },
            ];
            r.error = { message: "boom", where: "scorer" };
          }
          if (i === 4) r.output = { text: 'He said "Bonjour" to Élodie \\ ok' };
          if (i === 5) r.input = { document: `${"filler ".repeat(300)}needle-in-blob` };
          records.push(r);
        }
        await store.appendAttempts("q", records);
      });

      it("pages in case order with the total", async () => {
        const first = await store.queryAttempts("q", { limit: 15 });
        expect(first.total).toBe(40);
        expect(first.items.map((r) => r.caseId)).toEqual(
          Array.from({ length: 15 }, (_, i) => `case-${i}`),
        );
        const last = await store.queryAttempts("q", { offset: 35, limit: 15 });
        expect(last.total).toBe(40);
        expect(keys(last.items)).toEqual([5, 6, 7, 8, 9].map((i) => `beta/case-${i}/0`));
        expect(await store.queryAttempts("q", { offset: 100 })).toEqual({ total: 40, items: [] });
        expect((await store.queryAttempts("q", { limit: 5000 })).items).toHaveLength(40);
        expect((await store.queryAttempts("q")).items).toHaveLength(40);
      });

      it("filters by eval, verdict and verdicts", async () => {
        expect((await store.queryAttempts("q", { evalId: "beta" })).total).toBe(10);
        const failed = await store.queryAttempts("q", { verdict: "failed" });
        expect(failed.items.map((r) => r.caseId)).toEqual([
          "case-0",
          "case-5",
          "case-10",
          "case-15",
          "case-20",
          "case-25",
        ]);
        expect((await store.queryAttempts("q", { verdict: ["failed", "errored"] })).total).toBe(7);
        expect(
          (await store.queryAttempts("q", { verdict: ["errored"], evalId: "alpha" })).total,
        ).toBe(0);
        expect((await store.queryAttempts("q", { verdict: [] })).total).toBe(0);
        expect(await store.queryAttempts("q", { evalId: "nope" })).toEqual({ total: 0, items: [] });
      });

      it("filters by judgment state and by judgment label", async () => {
        expect((await store.queryAttempts("q", { judgmentState: "mismatched" })).total).toBe(6);
        const errored = await store.queryAttempts("q", { judgmentState: "errored" });
        expect(keys(errored.items)).toEqual(["beta/case-3/0"]);
        expect((await store.queryAttempts("q", { judgmentState: "unavailable" })).total).toBe(0);
        expect((await store.queryAttempts("q", { judgmentLabel: "judged" })).total).toBe(1);
        expect((await store.queryAttempts("q", { judgmentLabel: "exact" })).total).toBe(39);
        expect((await store.queryAttempts("q", { judgmentLabel: "nope" })).total).toBe(0);
      });

      it("with a label and a state, counts that label's own judgment in that state", async () => {
        const total = async (judgmentLabel: string, judgmentState: JudgmentState) =>
          (await store.queryAttempts("q", { judgmentLabel, judgmentState })).total;
        expect(await total("exact", "mismatched")).toBe(6);
        // Six attempts have a mismatched judgment, none of them regex's.
        expect(await total("regex", "mismatched")).toBe(0);
        // Every attempt has a matched judgment; exact's matched in 33 of its 39.
        expect(await total("exact", "matched")).toBe(33);
        expect(await total("regex", "matched")).toBe(39);
        expect(await total("judged", "errored")).toBe(1);
        expect(await total("exact", "errored")).toBe(0);
        const page = await store.queryAttempts("q", {
          judgmentLabel: "exact",
          judgmentState: "mismatched",
          evalId: "alpha",
          limit: 2,
          offset: 1,
        });
        expect(page.total).toBe(6);
        expect(keys(page.items)).toEqual(["alpha/case-5/0", "alpha/case-10/0"]);
      });

      it("searches case ids, inputs, outputs and reasons, case-insensitively", async () => {
        const ids = async (text: string) =>
          keys((await store.queryAttempts("q", { text, limit: 1000 })).items);
        expect(await ids("CASE-2")).toEqual([
          "alpha/case-2/0",
          "alpha/case-20/0",
          "alpha/case-21/0",
          "alpha/case-22/0",
          "alpha/case-23/0",
          "alpha/case-24/0",
          "alpha/case-25/0",
          "alpha/case-26/0",
          "alpha/case-27/0",
          "alpha/case-28/0",
          "alpha/case-29/0",
          "beta/case-2/0",
        ]);
        expect(await ids("answer-17")).toEqual(["alpha/case-17/0"]); // output text
        expect(await ids("differs from")).toHaveLength(6); // a reason
        expect(await ids("50%_off")).toEqual(["beta/case-3/0"]); // LIKE wildcards are literal
        expect(await ids("0%_")).toEqual(["beta/case-3/0"]);
        expect(await ids('said "bonjour"')).toEqual(["beta/case-4/0"]); // quotes inside JSON
        expect(await ids("élodie \\ OK")).toEqual(["beta/case-4/0"]);
        expect(await ids("ÉLODIE")).toEqual(["beta/case-4/0"]); // beyond ASCII
        expect(await ids("NEEDLE-in-blob")).toEqual(["beta/case-5/0"]); // a large input
        expect(await ids("no such text anywhere")).toEqual([]);
        const combined = await store.queryAttempts("q", { text: "case-1", verdict: "failed" });
        expect(keys(combined.items)).toEqual(["alpha/case-10/0", "alpha/case-15/0"]);
        expect(combined.total).toBe(2);
        expect((await store.queryAttempts("q", { text: "case-1", limit: 3 })).total).toBe(12);
      });

      it("searches runs whose reasons are all different (a judge's)", async () => {
        await store.beginRun(manifest("judged"));
        await store.appendAttempts(
          "judged",
          Array.from({ length: 60 }, (_, i) => {
            const r = attempt("alpha", i);
            r.judgments = [judgment("judge", i % 2 === 0, `The Judge says unique-reason-${i}`)];
            return r;
          }),
        );
        const total = async (text: string) => (await store.queryAttempts("judged", { text })).total;
        expect(await total("the judge SAYS")).toBe(60);
        expect(await total("unique-reason-7")).toBe(1);
        expect(await total("unique-reason-1")).toBe(11);
        expect(
          (await store.queryAttempts("judged", { text: "unique-reason", verdict: "passed" })).total,
        ).toBe(60);
        expect((await store.queryAttempts("q", { text: "unique-reason" })).total).toBe(0);
      });

      it("sorts by score, elapsed and verdict, both ways, ties in case order", async () => {
        const beta = { evalId: "beta" };
        const byScore = await store.queryAttempts("q", { ...beta, sort: "score", order: "desc" });
        expect(byScore.items.map((r) => r.score.earned)).toEqual([4, 4, 3, 3, 2, 2, 1, 1, 0, 0]);
        expect(byScore.items.map((r) => r.caseId).slice(0, 2)).toEqual(["case-4", "case-9"]);
        const asc = await store.queryAttempts("q", { ...beta, sort: "score", order: "asc" });
        expect(asc.items.map((r) => r.score.earned)).toEqual([0, 0, 1, 1, 2, 2, 3, 3, 4, 4]);
        const slow = await store.queryAttempts("q", {
          evalId: "alpha",
          sort: "elapsed",
          order: "desc",
          limit: 3,
        });
        expect(slow.items.map((r) => r.elapsedMs)).toEqual([29, 28, 27]);
        const fast = await store.queryAttempts("q", { evalId: "alpha", sort: "elapsed", limit: 2 });
        expect(fast.items.map((r) => r.elapsedMs)).toEqual([0, 1]);
        const worst = await store.queryAttempts("q", { sort: "verdict", order: "desc", limit: 2 });
        expect(worst.items.map((r) => r.verdict)).toEqual(["errored", "failed"]);
        expect(worst.items[1]?.caseId).toBe("case-0");
        const down = await store.queryAttempts("q", { order: "desc", limit: 2 });
        expect(keys(down.items)).toEqual(["beta/case-9/0", "beta/case-8/0"]);
      });

      it("answers an unknown run with RUN_NOT_FOUND, telling a reader where the runs are listed", async () => {
        const first = async (iterable: AsyncIterable<unknown>) => {
          for await (const item of iterable) return item;
        };
        // A read is not a write: the advice is the reader's, not to begin the run.
        // Each read starts when awaited: one started earlier would reject with nobody waiting.
        for (const read of [
          () => store.queryAttempts("ghost"),
          () => first(store.streamAttempts("ghost")),
          () => first(store.attemptKeys("ghost")),
          () => first(store.attemptHistory("ghost")),
        ]) {
          const error = await thrown(read());
          expect(error.code).toBe("RUN_NOT_FOUND");
          expect(error.message).toMatch(
            /^no run ghost in .+; listRuns\(\) lists the runs it holds, with their ids\.$/,
          );
        }
      });
    });

    describe("runs", () => {
      it("lists runs newest first, with filters on eval, branch, tags and status", async () => {
        // Written by this process, so the runs left running are running, not crashed.
        const live = { writer: { pid: process.pid, host: hostname() } };
        await store.beginRun({
          ...manifest("r1", { startedAt: at(1), branch: "main", tags: { ci: "1" } }),
          ...live,
        });
        await store.beginRun({
          ...manifest("r2", { startedAt: at(2), branch: "feat", evals: ["alpha", "beta"] }),
          ...live,
        });
        await store.beginRun({
          ...manifest("r3", { startedAt: at(3), branch: "main", tags: { ci: "1", os: "linux" } }),
          ...live,
        });
        await store.finishRun("r1", { status: "finished", endedAt: at(4), summaries: [] });
        const ids = async (query?: Parameters<Store["listRuns"]>[0]) =>
          (await store.listRuns(query)).map((r) => r.runId);
        expect(await ids()).toEqual(["r3", "r2", "r1"]);
        expect(await ids({ limit: 2 })).toEqual(["r3", "r2"]);
        expect(await ids({ evalId: "beta" })).toEqual(["r2"]);
        expect(await ids({ branch: "main" })).toEqual(["r3", "r1"]);
        expect(await ids({ tags: { ci: "1" } })).toEqual(["r3", "r1"]);
        expect(await ids({ tags: { ci: "1", os: "linux" } })).toEqual(["r3"]);
        expect(await ids({ tags: { ci: "2" } })).toEqual([]);
        expect(await ids({ status: "running" })).toEqual(["r3", "r2"]);
        expect(await ids({ status: "finished", branch: "main" })).toEqual(["r1"]);
      });

      it("filters on status as runs are shown: one left running by a writer that is gone is crashed", async () => {
        const gone = { writer: { pid: 2 ** 22 + 1, host: hostname() } };
        await store.beginRun({ ...manifest("alive", { startedAt: at(1) }), writer: thisWriter() });
        await store.beginRun({ ...manifest("dead", { startedAt: at(2) }), ...gone });
        await store.beginRun(manifest("unrecorded", { startedAt: at(3) }));
        await store.beginRun(manifest("ended", { startedAt: at(4) }));
        await store.finishRun("ended", { status: "crashed", endedAt: at(5), summaries: [] });
        await store.beginRun({ ...manifest("later", { startedAt: at(6) }), writer: thisWriter() });
        const ids = async (query: Parameters<Store["listRuns"]>[0]) =>
          (await store.listRuns(query)).map((r) => r.runId);
        expect(await ids({ status: "running" })).toEqual(["later", "alive"]);
        expect(await ids({ status: "crashed" })).toEqual(["ended", "unrecorded", "dead"]);
        expect(await ids({ status: "crashed", limit: 2 })).toEqual(["ended", "unrecorded"]);
        expect(await ids({ status: "running", limit: 1 })).toEqual(["later"]);
      });

      it("refuses list options it cannot follow, naming the option, the value and what it takes", async () => {
        await store.beginRun(manifest("listed"));
        const refused = async (query: object, message: string) => {
          const error = await store
            .listRuns(query as Parameters<Store["listRuns"]>[0])
            .catch((e: unknown) => e);
          expect(error).toMatchObject({ code: "STORE_QUERY" });
          expect((error as Error).message).toContain(message);
        };
        await refused({ status: "finsihed" }, 'got "finsihed" (did you mean "finished"?)');
        await refused({ evalid: "qa" }, 'unknown key "evalid" (did you mean "evalId"?)');
        await refused({ limit: Number.NaN }, "limit must be a whole number from 1, got NaN");
        await refused({ limit: -1 }, "limit must be a whole number from 1, got -1");
        await refused({ limit: 2.5 }, "got 2.5");
        await refused({ branch: 3 }, "branch must be a string, got 3");
        await refused({ tags: "ci=1" }, "tags must be an object of strings");
        await refused({ tags: { ci: 1 } }, 'tag "ci" must be a string, got 1');
        expect((await store.listRuns({ limit: 1 })).map((r) => r.runId)).toEqual(["listed"]);
      });

      it("takes an option or a manifest field given as undefined as one left out", async () => {
        const given = {
          ...manifest("plain", { startedAt: at(1) }),
          name: undefined,
          git: undefined,
          shard: undefined,
          filter: undefined,
          writer: undefined,
          resumes: undefined,
        };
        await store.beginRun(given, { join: undefined, resume: undefined, force: undefined });
        await store.beginRun(manifest("named", { startedAt: at(2), name: "n" }), {
          retire: undefined,
        });
        await store.appendAttempts("plain", [attempt("alpha", 0), attempt("alpha", 1)]);
        await store.finishRun("plain", {
          status: "finished",
          endedAt: undefined,
          summaries: [],
          datasetHashes: undefined,
          loadErrors: undefined,
          runErrors: undefined,
        });
        const all = {
          limit: undefined,
          evalId: undefined,
          branch: undefined,
          tags: undefined,
          status: undefined,
        };
        expect((await store.listRuns(all)).map((r) => r.runId)).toEqual(["named", "plain"]);
        const stored = await store.getRun("plain");
        expect(stored?.status).toBe("finished");
        for (const key of ["name", "git", "shard", "filter", "writer", "resumes", "endedAt"])
          expect(stored).not.toHaveProperty(key);
        const page = await store.queryAttempts("plain", {
          evalId: undefined,
          verdict: undefined,
          judgmentState: undefined,
          judgmentLabel: undefined,
          text: undefined,
          sort: undefined,
          order: undefined,
          offset: undefined,
          limit: undefined,
        });
        expect(page.total).toBe(2);
        expect(keys(await collect(store.streamAttempts("plain", { evalId: undefined })))).toEqual(
          keys(await collect(store.streamAttempts("plain"))),
        );
      });

      it("returns the manifest and totals counted from the attempts, also while running", async () => {
        const m = manifest("tot", { evals: ["alpha", "beta", "gamma"], name: "nightly" });
        await store.beginRun(m);
        expect((await store.getRun("tot"))?.totals).toEqual({
          evals: 0,
          cases: 0,
          attempts: 0,
          passed: 0,
          failed: 0,
          errored: 0,
          skipped: 0,
          interrupted: 0,
          meanScore: null,
          scoredAttempts: 0,
        });
        const unscored = attempt("beta", 1, { verdict: "errored" });
        unscored.score = { state: "unavailable", earned: 0, max: 4, reasons: [] };
        await store.appendAttempts("tot", [
          attempt("alpha", 0, { trial: 0 }),
          attempt("alpha", 0, { trial: 1, verdict: "failed", earned: 2 }),
          attempt("beta", 0),
          unscored,
          { ...attempt("beta", 2), verdict: "skipped" },
        ]);
        const run = await store.getRun("tot");
        expect(run).toMatchObject({ ...m, status: "running" });
        expect(run?.endedAt).toBeUndefined();
        expect(run?.totals).toEqual({
          evals: 2,
          cases: 4,
          attempts: 5,
          passed: 2,
          failed: 1,
          errored: 1,
          skipped: 1,
          interrupted: 0,
          // The skipped attempt is out of the mean, as it is out of the pass rate.
          meanScore: expect.closeTo((1 + 0.5 + 1) / 3, 12),
          scoredAttempts: 3,
        });
        const [listed] = await store.listRuns();
        expect(listed).toEqual(run);
        expect(await store.getRun("nope")).toBeUndefined();
      });

      it("finishes a run with each status, its summaries and dataset hashes", async () => {
        for (const status of ["finished", "interrupted", "crashed"] as const) {
          await store.beginRun(manifest(`end-${status}`, { evals: ["alpha", "beta"] }));
          await store.finishRun(`end-${status}`, {
            status,
            endedAt: at(9),
            summaries: [summary("alpha", 3), summary("beta", 0)],
            datasetHashes: { alpha: "ds-a" },
            loadErrors: [{ file: "evals/broken.eval.ts", message: "SyntaxError" }],
          });
          const run = await store.getRun(`end-${status}`);
          expect(run?.status).toBe(status);
          expect(run?.endedAt).toBe(at(9));
          expect(run?.summaries).toEqual([summary("alpha", 3), summary("beta", 0)]);
          expect(run?.evals.map((e) => e.datasetHash)).toEqual(["ds-a", undefined]);
          expect(run?.loadErrors).toEqual([
            { file: "evals/broken.eval.ts", message: "SyntaxError" },
          ]);
        }
        // A continuation that stops before reading alpha's cases again leaves it no hash.
        await store.beginRun(manifest("end-interrupted", { evals: ["alpha", "beta"] }), {
          resume: true,
        });
        await store.finishRun("end-interrupted", {
          status: "interrupted",
          endedAt: at(10),
          summaries: [],
          datasetHashes: { alpha: null, beta: "ds-b" },
        });
        const continued = await store.getRun("end-interrupted");
        expect(continued?.evals.map((e) => e.datasetHash)).toEqual([undefined, "ds-b"]);
        expect((await store.listRuns({ status: "crashed" })).map((r) => r.runId)).toEqual([
          "end-crashed",
        ]);
        const error = await thrown(
          store.finishRun("ghost", { status: "finished", endedAt: at(1), summaries: [] }),
        );
        expect(error.code).toBe("RUN_NOT_FOUND");
      });

      it("keeps how long a run took as its report said, a continuation's own, and none unsaid", async () => {
        await store.beginRun(manifest("timed"));
        await store.finishRun("timed", {
          status: "interrupted",
          endedAt: at(9),
          elapsedMs: 164.5,
          summaries: [],
        });
        expect((await store.getRun("timed"))?.elapsedMs).toBe(164.5);
        // Continued, the run is timed anew: nothing while it runs, then the continuation's time.
        await store.beginRun(manifest("timed"), { resume: true });
        expect((await store.getRun("timed"))?.elapsedMs).toBeUndefined();
        await store.finishRun("timed", {
          status: "finished",
          endedAt: at(10),
          elapsedMs: 44,
          summaries: [],
        });
        expect((await store.getRun("timed"))?.elapsedMs).toBe(44);
        // An end that does not say (a merge, an export cut short) leaves no time of another end.
        await store.finishRun("timed", { status: "finished", endedAt: at(11), summaries: [] });
        expect((await store.getRun("timed"))?.elapsedMs).toBeUndefined();
        const refused = await thrown(
          store.finishRun("timed", { status: "finished", elapsedMs: Number.NaN, summaries: [] }),
        );
        expect(refused.code).toBe("USAGE");
        expect(refused.message).toContain("finishRun: end.elapsedMs");
      });

      it("refuses a manifest missing a field its readers use, or holding another type there, naming the field", async () => {
        const base = manifest("fields");
        const evalOf = base.evals[0]!;
        const refusals: [Record<string, unknown>, string][] = [
          [{ command: undefined }, "beginRun: manifest.command must be an array of strings"],
          [{ command: ["run", 3] }, 'got ["run",3]'],
          [{ tags: { ci: true } }, "beginRun: manifest.tags must be an object of string values"],
          [{ tags: undefined }, "got undefined"],
          [
            { files: [{ path: "a.eval.ts" }] },
            'beginRun: manifest.files[0] must be { path, hash } with both strings, got {"path":"a.eval.ts"}',
          ],
          [{ evals: {} }, "beginRun: manifest.evals must be an array"],
          [
            { evals: [{ ...evalOf, evalId: "" }] },
            "beginRun: manifest.evals[0].evalId must be a non-empty string",
          ],
          [
            { evals: [evalOf, { ...evalOf }] },
            `beginRun: manifest.evals[1].evalId "${evalOf.evalId}" names an eval listed before it`,
          ],
          [
            { evals: [{ ...evalOf, style: "pairwise" }] },
            'manifest.evals[0].style must be "suite" or "score", got "pairwise"',
          ],
          [
            { evals: [{ ...evalOf, judgeModels: undefined }] },
            "manifest.evals[0].judgeModels must be an array of strings",
          ],
          [
            { trials: "3" },
            'beginRun: manifest.trials must be a whole number from 1, got "3" (a string)',
          ],
          [
            { concurrency: 0 },
            "beginRun: manifest.concurrency must be a whole number from 1, got 0",
          ],
          [{ nodeVersion: 20 }, "beginRun: manifest.nodeVersion must be a string, got 20"],
        ];
        for (const [change, message] of refusals) {
          const error = await thrown(store.beginRun({ ...base, ...change } as never));
          expect(error.code, message).toBe("USAGE");
          expect(error.message).toContain(message);
        }
        // Nothing was written: the same id begins once the manifest is whole.
        expect(await store.listRuns()).toEqual([]);
        await store.beginRun(base);
        expect((await store.getRun("fields"))?.command).toEqual(base.command);
      });

      it("refuses attempt records missing a field the store reads, naming the record, its case and the field, and writes none of the batch", async () => {
        await store.beginRun(manifest("records"));
        const good = attempt("alpha", 1);
        const refusals: [unknown, string][] = [
          [null, "appendAttempts: records[1] must be an attempt record (an object), got null"],
          [
            { ...good, judgments: undefined },
            'appendAttempts: records[1] (eval "alpha", case "case-1") judgments must be an array',
          ],
          [
            { ...good, score: undefined },
            'records[1] (eval "alpha", case "case-1") score must be { state, earned, max, reasons }, got undefined',
          ],
          [
            { ...good, verdict: "ok" },
            'verdict must be "passed", "failed", "errored" or "skipped", got "ok"',
          ],
          [{ ...good, caseId: 7 }, "caseId must be a string, got 7"],
          [{ ...good, usage: undefined }, "usage must be { app, judge }"],
          [
            { ...good, elapsedMs: "1" },
            'elapsedMs must be a finite number of milliseconds from 0, got "1" (a string)',
          ],
          [{ ...good, trial: -1 }, "trial must be a whole number from 0 when given, got -1"],
          [
            { ...good, judgments: [{ ...good.judgments[0], state: "passed" }] },
            'judgments[0].state must be "matched", "mismatched", "unavailable" or "errored", got "passed"',
          ],
          [
            { ...good, score: { ...good.score, max: Number.NaN } },
            "score.max must be a finite number, got NaN",
          ],
          [
            { ...good, error: "boom" },
            'error must be { message, where } when there is one, got "boom"',
          ],
          [{ ...good, error: { where: "x" } }, "error.message must be a string, got undefined"],
          [
            { ...good, usage: { app: good.usage.app } },
            "usage.judge must be an object, got undefined",
          ],
          [
            { ...good, judgments: [{ ...good.judgments[0], gate: undefined }] },
            "judgments[0].gate must be true or false, got undefined",
          ],
          [
            { ...good, judgments: [{ ...good.judgments[0], earned: "1" }] },
            'judgments[0].earned must be a finite number, or null where evidence was missing, got "1" (a string)',
          ],
          [
            { ...good, trial: 2, verdict: undefined },
            '(eval "alpha", case "case-1", trial 2) verdict must be',
          ],
        ];
        for (const [bad, message] of refusals) {
          const error = await thrown(
            store.appendAttempts("records", [attempt("alpha", 0), bad] as never),
          );
          expect(error.code, message).toBe("USAGE");
          expect(error.message).toContain(message);
        }
        const notAList = await thrown(store.appendAttempts("records", null as never));
        expect(notAList.message).toContain(
          "appendAttempts: records must be an array of attempt records, got null",
        );
        // The good record beside each bad one was not written either.
        expect(await store.queryAttempts("records")).toMatchObject({ total: 0 });
        // An error of null is no error, as the encoders read it.
        await store.appendAttempts("records", [{ ...attempt("alpha", 5), error: null } as never]);
        await store.appendAttempts("records", [
          { ...attempt("alpha", 6), error: undefined } as never,
        ]);
        expect(await store.queryAttempts("records")).toMatchObject({ total: 2 });
      });

      it("refuses beginRun options it cannot follow, a misspelt one included, naming it", async () => {
        await store.beginRun(manifest("opts"));
        const refusals: [unknown, string][] = [
          [
            { joinn: true },
            'beginRun: unknown key "options.joinn" (did you mean "options.join"?); known keys: options.join, options.resume, options.force, options.retire',
          ],
          [
            { join: "yes" },
            'beginRun: options.join must be true or false when given, got "yes" (a string)',
          ],
          [
            null,
            "beginRun: options must be an object ({ join, resume, force, retire }) when given, got null",
          ],
          [
            { resume: true, retire: [{ evalId: "alpha", caseId: "c" }] },
            "beginRun: options.retire[0] must be { evalId, caseId, trial }",
          ],
        ];
        for (const [options, message] of refusals) {
          const error = await thrown(store.beginRun(manifest("opts"), options as never));
          expect(error.code, message).toBe("USAGE");
          expect(error.message).toContain(message);
        }
        // The run is as it was: joined with the options spelt right.
        await store.beginRun(manifest("opts"), { join: true });
        expect((await store.getRun("opts"))?.status).toBe("running");
      });

      it("refuses an end whose status or summaries are not what a run ends with", async () => {
        await store.beginRun(manifest("ends"));
        const refusals: [unknown, string][] = [
          [
            { status: "done", summaries: [] },
            'finishRun: end.status must be "finished", "interrupted" or "crashed", got "done"',
          ],
          [{ status: "running", summaries: [] }, 'got "running"'],
          [{ status: "finished" }, "finishRun: end.summaries must be an array"],
          [undefined, "finishRun: the end must be an object"],
          [[], "finishRun: the end must be an object"],
        ];
        for (const [end, message] of refusals) {
          const error = await thrown(store.finishRun("ends", end as never));
          expect(error.code, message).toBe("USAGE");
          expect(error.message).toContain(message);
        }
        expect((await store.getRun("ends"))?.status).toBe("running");
      });

      it("refuses a second run with the same id", async () => {
        await store.beginRun(manifest("dup"));
        expect((await thrown(store.beginRun(manifest("dup")))).code).toBe("RUN_EXISTS");
      });

      it("refuses a run id that is empty or not a string, and a start or end that is not a date-time", async () => {
        const refusals: [() => Promise<unknown>, string][] = [
          [
            () => store.beginRun(manifest("")),
            "beginRun: manifest.runId must be a non-empty string naming the run, got an empty string; give each run an id of its own (runEvals makes one: its summary's runId)",
          ],
          [
            () => store.beginRun(manifest("   ")),
            'beginRun: manifest.runId must be a non-empty string naming the run, got "   "',
          ],
          [
            () => store.beginRun({ ...manifest("x"), runId: 7 as never }),
            "beginRun: manifest.runId must be a non-empty string naming the run, got 7",
          ],
          [
            () => store.beginRun(manifest("x", { name: "two\nlines" })),
            'beginRun: manifest.name must be text on one line without control characters: "two\\nlines" holds U+000A at character 4',
          ],
          [
            () => store.beginRun(manifest("x", { startedAt: "not a date" })),
            'beginRun: manifest.startedAt must be an ISO 8601 date-time with a time zone, such as "2025-01-31T09:30:00.000Z" (new Date().toISOString()), got "not a date"',
          ],
          [
            () => store.beginRun(manifest("x", { startedAt: "2026-01-01T10:00:00" })),
            'beginRun: manifest.startedAt must be an ISO 8601 date-time with a time zone, such as "2025-01-31T09:30:00.000Z" (new Date().toISOString()), got "2026-01-01T10:00:00"',
          ],
          [
            () => store.beginRun(manifest("x", { startedAt: "2026-02-30T10:00:00Z" })),
            'got "2026-02-30T10:00:00Z"',
          ],
        ];
        for (const [refused, message] of refusals) {
          const error = await thrown(refused());
          expect(error.code).toBe("USAGE");
          expect(error.message).toContain(message);
        }
        expect(await store.listRuns()).toEqual([]);
        await store.beginRun(manifest("ended"));
        const error = await thrown(
          store.finishRun("ended", { status: "finished", endedAt: "yesterday", summaries: [] }),
        );
        expect(error.code).toBe("USAGE");
        expect(error.message).toContain(
          'finishRun: end.endedAt must be an ISO 8601 date-time with a time zone, such as "2025-01-31T09:30:00.000Z" (new Date().toISOString()), got "yesterday"',
        );
        expect((await store.getRun("ended"))?.status).toBe("running");
      });

      it("keeps a start time with an offset in UTC, so latest is the newest whatever the zone", async () => {
        await store.beginRun(manifest("utc", { startedAt: "2026-01-01T10:00:00.000Z" }));
        // 10:30 in UTC, written in a zone whose text sorts before the UTC run's.
        await store.beginRun(manifest("offset", { startedAt: "2026-01-01T05:30:00-05:00" }));
        expect((await store.getRun("offset"))?.startedAt).toBe("2026-01-01T10:30:00.000Z");
        expect((await store.listRuns()).map((r) => r.runId)).toEqual(["offset", "utc"]);
        expect((await resolveRunRef(store, "latest")).runId).toBe("offset");
      });

      it("lets another writer join a run, refusing one whose files or configurations differ", async () => {
        const first = manifest("joined", { evals: ["alpha"] });
        first.command = ["niceeval", "run", "--store", "postgres://ci:hunter2@db:5432/evals"];
        await store.beginRun(first);
        await store.beginRun(manifest("joined", { evals: ["beta", "alpha"] }), { join: true });
        const changed = manifest("joined");
        changed.evals[0]!.configHash = "changed";
        const config = await thrown(store.beginRun(changed, { join: true }));
        expect(config.code).toBe("RUN_MISMATCH");
        expect(config.message).toContain("eval alpha");
        const files = manifest("joined");
        files.files = [{ path: "evals/a.eval.ts", hash: "edited" }];
        expect((await thrown(store.beginRun(files, { join: true }))).message).toContain(
          "evals/a.eval.ts",
        );
        await store.appendAttempts("joined", [attempt("beta", 0), attempt("alpha", 0)]);
        const run = await store.getRun("joined");
        // The first writer's manifest, without the password its command line carried.
        expect(run?.evals.map((e) => e.evalId)).toEqual(["alpha"]);
        expect(run?.command).toEqual([
          "niceeval",
          "run",
          "--store",
          "postgres://ci:***@db:5432/evals",
        ]);
        expect(run?.totals).toMatchObject({ evals: 2, attempts: 2 });
        expect(keys(await collect(store.streamAttempts("joined")))).toEqual([
          "alpha/case-0/0",
          "beta/case-0/0",
        ]);
        await store.beginRun(manifest("first-joiner"), { join: true });
        expect((await store.getRun("first-joiner"))?.status).toBe("running");
      });

      it("adds evals to a run of 200,000, by a joining writer or an attempt of an eval it lacks", async () => {
        const evals = Array.from({ length: 200_000 }, (_, i) => `e${i}`);
        await store.beginRun(manifest("wide", { evals }));
        await store.beginRun(manifest("wide", { evals: ["late", "e0"] }), { join: true });
        await store.appendAttempts("wide", [
          attempt("stray", 0),
          attempt("late", 0),
          attempt("e0", 0),
        ]);
        expect(keys(await collect(store.streamAttempts("wide")))).toEqual([
          "e0/case-0/0",
          "late/case-0/0",
          "stray/case-0/0",
        ]);
      });

      it("resumes a stopped run: running again under the new writer, marked, not compared", async () => {
        const first = manifest("resumed");
        first.writer = { pid: 11, host: "a" };
        await store.beginRun(first);
        await store.appendAttempts("resumed", [attempt("alpha", 0)]);
        await store.finishRun("resumed", { status: "interrupted", endedAt: at(9), summaries: [] });
        const again = manifest("resumed");
        again.files = [{ path: "evals/a.eval.ts", hash: "edited" }];
        again.writer = { pid: 22, host: "b" };
        again.resumes = [
          { at: at(10), mode: "resume", kept: 1, changes: ["file evals/a.eval.ts"] },
        ];
        again.resumedWithChanges = ["file evals/a.eval.ts"];
        await store.beginRun(again, { resume: true });
        const run = await store.getRun("resumed");
        expect(run?.status).toBe("running");
        expect(run?.endedAt).toBeUndefined();
        // The run's own manifest (files as they were), with the new writer and the marks.
        expect(run?.files).toEqual(first.files);
        expect(run?.writer).toEqual({ pid: 22, host: "b" });
        expect(run?.resumes).toEqual(again.resumes);
        expect(run?.resumedWithChanges).toEqual(["file evals/a.eval.ts"]);
        expect(run?.totals.attempts).toBe(1);
      });

      it("lists an eval a forced continuation added in the run's manifest, after the run's own", async () => {
        await store.beginRun(manifest("grown", { evals: ["alpha"] }));
        await store.appendAttempts("grown", [attempt("alpha", 0)]);
        await store.finishRun("grown", { status: "interrupted", endedAt: at(9), summaries: [] });
        const again = manifest("grown", { evals: ["alpha", "beta"] });
        again.resumedWithChanges = ['eval "beta" (new)'];
        await store.beginRun(again, { resume: true });
        await store.appendAttempts("grown", [attempt("beta", 0)]);
        const run = await store.getRun("grown");
        expect(run?.evals.map((e) => e.evalId)).toEqual(["alpha", "beta"]);
        expect(run?.totals.attempts).toBe(2);
      });

      it("retires the attempts a continuation replaces: into history, out of the totals", async () => {
        await store.beginRun(manifest("retired", { evals: ["alpha"] }));
        const unread = attempt("alpha", 2, { verdict: "errored" });
        unread.caseId = "(cases)";
        unread.error = { message: "reading the cases failed", where: "dataset" };
        await store.appendAttempts("retired", [attempt("alpha", 0), attempt("alpha", 1), unread]);
        await store.finishRun("retired", { status: "finished", endedAt: at(9), summaries: [] });
        expect((await store.getRun("retired"))?.totals).toMatchObject({ cases: 3, errored: 1 });
        await store.beginRun(manifest("retired", { evals: ["alpha"] }), {
          resume: true,
          retire: [
            { evalId: "alpha", caseId: "(cases)", trial: 0 },
            // Not stored: nothing to retire.
            { evalId: "alpha", caseId: "case-9", trial: 0 },
          ],
        });
        expect(keys(await collect(store.streamAttempts("retired")))).toEqual([
          "alpha/case-0/0",
          "alpha/case-1/0",
        ]);
        const run = await store.getRun("retired");
        expect(run?.totals).toMatchObject({ cases: 2, attempts: 2, passed: 2, errored: 0 });
        const history = await collectHistory(store, "retired");
        expect(history.map((h) => `${h.record.caseId}:${h.record.verdict}`)).toEqual([
          "(cases):errored",
        ]);
        // The continuation appends on: cases 2 and 3 come after the run's.
        await store.appendAttempts("retired", [attempt("alpha", 2), attempt("alpha", 3)]);
        expect((await store.getRun("retired"))?.totals).toMatchObject({ cases: 4, passed: 4 });
      });

      it("counts the attempts a stop cut off in the totals, as they are appended, replaced and retired", async () => {
        await store.beginRun(manifest("cut", { evals: ["alpha", "beta"] }));
        const cutOff = (evalId: string, index: number) => {
          const record = attempt(evalId, index, { verdict: "errored" });
          record.error = { message: "interrupted by SIGINT", where: "run", interrupted: true };
          return record;
        };
        const threw = attempt("alpha", 3, { verdict: "errored" });
        threw.error = { message: "TypeError: boom", where: "target" };
        await store.appendAttempts("cut", [
          attempt("alpha", 0),
          cutOff("alpha", 1),
          cutOff("alpha", 2),
          threw,
          cutOff("beta", 0),
        ]);
        // No summaries (a run still running, or crashed): the totals alone say how many.
        const running = await store.getRun("cut");
        expect(running?.summaries).toBeUndefined();
        expect(running?.totals).toMatchObject({ attempts: 5, errored: 4, interrupted: 3 });
        const [listed] = await store.listRuns();
        expect(listed?.totals.interrupted).toBe(3);
        // Run again and passed: no longer cut off; the same attempt cut off again counts once.
        await store.appendAttempts("cut", [attempt("alpha", 1), cutOff("alpha", 2)]);
        expect((await store.getRun("cut"))?.totals).toMatchObject({
          passed: 2,
          errored: 3,
          interrupted: 2,
        });
        // A continuation retires one: out of the totals, interrupted too.
        await store.finishRun("cut", { status: "interrupted", endedAt: at(9), summaries: [] });
        await store.beginRun(manifest("cut", { evals: ["alpha", "beta"] }), {
          resume: true,
          retire: [{ evalId: "beta", caseId: "case-0", trial: 0 }],
        });
        expect((await store.getRun("cut"))?.totals).toMatchObject({
          attempts: 4,
          errored: 2,
          interrupted: 1,
        });
      });

      it("refuses to resume a run a live process on this host still writes, unless forced", async () => {
        const first = manifest("taken");
        // This test's parent process: alive for as long as the test runs.
        first.writer = { pid: process.ppid, host: hostname() };
        await store.beginRun(first);
        const again = manifest("taken");
        again.writer = { pid: 22, host: "b" };
        const refused = await store.beginRun(again, { resume: true }).then(
          () => undefined,
          (e: unknown) => e as NiceevalError,
        );
        expect(refused?.code).toBe("RUN_STILL_RUNNING");
        expect(refused?.message).toContain(`pid ${process.ppid}`);
        // Opened from code: the way through is beginRun's option, not the CLI's --force.
        expect(refused?.message).toContain(
          "Wait for it, stop it, or pass beginRun { resume: true, force: true } if that process is gone.",
        );
        expect((await store.getRun("taken"))?.writer?.pid).toBe(process.ppid);
        await store.beginRun(again, { resume: true, force: true });
        expect((await store.getRun("taken"))?.writer).toEqual({ pid: 22, host: "b" });
      });

      it("lists the key and verdict of every attempt without its values", async () => {
        await store.beginRun(manifest("keyed", { evals: ["alpha", "beta"] }));
        const cut = attempt("beta", 4, { verdict: "errored" });
        cut.error = { message: "interrupted by SIGINT", where: "run", interrupted: true };
        await store.appendAttempts("keyed", [
          attempt("alpha", 0),
          attempt("alpha", 0, { trial: 1, verdict: "errored" }),
          attempt("beta", 3, { verdict: "failed" }),
          cut,
        ]);
        const listed: string[] = [];
        for await (const k of store.attemptKeys("keyed"))
          listed.push(
            `${k.evalId}/${k.caseId}/${k.trial}:${k.verdict}${k.interrupted ? " (cut off)" : ""}`,
          );
        expect(listed.sort()).toEqual([
          "alpha/case-0/0:passed",
          "alpha/case-0/1:errored",
          "beta/case-3/0:failed",
          "beta/case-4/0:errored (cut off)",
        ]);
      });
    });

    describe("attempt history", () => {
      it("keeps a replaced attempt as history, in case order, and the run holds the last", async () => {
        await store.beginRun(manifest("hist", { evals: ["alpha"] }));
        await store.appendAttempts("hist", [
          attempt("alpha", 0, { verdict: "errored" }),
          attempt("alpha", 1),
          attempt("alpha", 2, { verdict: "errored" }),
        ]);
        expect(await collectHistory(store, "hist")).toEqual([]);
        await store.appendAttempts("hist", [attempt("alpha", 2, { verdict: "failed" })]);
        await store.appendAttempts("hist", [attempt("alpha", 0)]);
        await store.appendAttempts("hist", [attempt("alpha", 2)]);
        const history = await collectHistory(store, "hist");
        expect(history.map((h) => `${h.record.caseId}:${h.record.verdict}`)).toEqual([
          "case-0:errored",
          "case-2:errored",
          "case-2:failed",
        ]);
        expect(history[0]!.record.judgments).toEqual(
          attempt("alpha", 0, { verdict: "errored" }).judgments,
        );
        for (const h of history) expect(Number.isNaN(Date.parse(h.replacedAt))).toBe(false);
        const current = await collect(store.streamAttempts("hist"));
        expect(current.map((r) => r.verdict)).toEqual(["passed", "passed", "passed"]);
        const run = await store.getRun("hist");
        expect(run?.totals).toMatchObject({ attempts: 3, passed: 3, errored: 0, failed: 0 });
        expect(await collectHistory(store, "other")).toEqual([]);
      });
    });

    describe("run references", () => {
      beforeEach(async () => {
        await store.beginRun({ ...manifest("aaaaaa11-one", { startedAt: at(1) }), name: "base" });
        await store.beginRun(manifest("aaaaaa22-two", { startedAt: at(2) }));
        await store.beginRun({ ...manifest("bbbbbb33-three", { startedAt: at(3) }), name: "head" });
      });
      const ref = async (r: string) => (await resolveRunRef(store, r)).runId;

      it("resolves a full id, a unique prefix, a name, latest and latest~N", async () => {
        expect(await ref("aaaaaa22-two")).toBe("aaaaaa22-two");
        expect(await ref("aaaaaa2")).toBe("aaaaaa22-two");
        expect(await ref("bbbbbb")).toBe("bbbbbb33-three");
        expect(await ref("base")).toBe("aaaaaa11-one");
        expect(await ref("head")).toBe("bbbbbb33-three");
        expect(await ref("latest")).toBe("bbbbbb33-three");
        expect(await ref("latest~0")).toBe("bbbbbb33-three");
        expect(await ref("latest~2")).toBe("aaaaaa11-one");
      });

      it("throws RUN_AMBIGUOUS or RUN_NOT_FOUND listing the most recent runs", async () => {
        const ambiguous = await thrown(resolveRunRef(store, "aaaaaa"));
        expect(ambiguous.code).toBe("RUN_AMBIGUOUS");
        expect(ambiguous.message).toContain("aaaaaa11");
        expect(ambiguous.message).toContain("aaaaaa22");
        for (const missing of ["latest~3", "zzzzzzzz", "bbb", "tail"]) {
          const error = await thrown(resolveRunRef(store, missing));
          expect(error.code).toBe("RUN_NOT_FOUND");
          expect(error.message).toContain(missing);
          expect(error.message).toContain("bbbbbb33");
          expect(error.message).toContain("head");
          expect(error.message).toContain(at(3));
          // Left running with no writer recorded: listed as the crashed run it is.
          expect(error.message).toContain("crashed");
        }
      });
    });
  });
}
