import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { AuthoringError } from "../errors.js";
import { emptyJudgeUsage, type Judgment } from "../eval/record.js";
import { isRunnable } from "../eval/runnable.js";
import { countWhere, inOrder } from "../expect/collection.js";
import { atLeast, atMost, equals } from "../expect/compare.js";
import { defineContextMatch, defineMaterialMatch } from "../expect/context-match.js";
import { and, not, or } from "../expect/logic.js";
import type { BooleanMatch, MaterialCollection, NumericMaterial } from "../expect/types.js";
import { includes } from "../expect/values.js";
import { recordJudgeUsage } from "../judge/ledger.js";
import { setDefaultCloseQAJudge } from "../judge/registry.js";
import type { CloseQAJudge } from "../judge/types.js";
import { defineAdapter } from "./define-adapter.js";
import type { UsageReport } from "./types.js";

type Facts = { readonly status: string; readonly notes: MaterialCollection<string> };
const notes = defineMaterialMatch<Facts, string>({
  name: "notes",
  read: (f) => f.notes,
  match: equals<string>("ok"),
});

const adapter = defineAdapter({
  name: "Ticket Desk",
  create: async (ctx): Promise<Facts> => {
    ctx.reportUsage({ inputTokens: 100, outputTokens: 20 });
    return { status: "closed", notes: { state: "complete", items: ["ok", "x".repeat(2000)] } };
  },
  assertions: ({ check }) => ({
    closed: () =>
      check(
        defineContextMatch<Facts, string>({
          name: "status",
          read: (f) => ({ state: "available", value: f.status }),
          match: equals("closed"),
        }),
      ),
  }),
});

type T = Parameters<Parameters<typeof adapter.defineScoreEval>[0]["test"]>[0];
const run = (test: (t: T) => void) =>
  adapter.defineScoreEval({ description: "Ticket handling", test }).run();

describe("defineScoreEval", () => {
  it("returns a Runnable with a derived id and one case", async () => {
    const evaluation = adapter.defineScoreEval({
      description: "Ticket handling: fast & polite!",
      test(t) {
        t.closed().gate();
      },
    });
    expect(isRunnable(evaluation)).toBe(true);
    expect(evaluation).toMatchObject({
      id: "ticket-desk.ticket-handling-fast-polite",
      style: "score",
      adapter: "Ticket Desk",
    });
    expect(adapter.defineScoreEval({ id: "custom", description: "x", test() {} }).id).toBe(
      "custom",
    );
    const record = await evaluation.runCase(
      { id: "default", index: 0 },
      { runId: "r1", signal: new AbortController().signal },
    );
    expect(record).toMatchObject({
      evalId: evaluation.id,
      caseId: "default",
      verdict: "passed",
      judgments: [{ label: "status", state: "matched" }],
    });
  });

  // Never a case that passes with nothing checked, as a suite without scorers is refused.
  it("errors an attempt whose test recorded nothing, and skips one that called t.skip", async () => {
    const empty = await run(() => {});
    expect(empty.verdict).toBe("errored");
    expect(empty.error).toEqual({
      where: 'test of eval "ticket-desk.ticket-handling"',
      message:
        "test(t) recorded no check, score or question, so the case has nothing to pass or fail on; record one (t.check(...), t.score(...), t.closeQA(...) or an assertion of the adapter), or call t.skip(reason) where the case deliberately checks nothing",
    });
    expect(empty.score).toMatchObject({
      state: "unavailable",
      reasons: [
        'test of eval "ticket-desk.ticket-handling" recorded no check, so there is nothing to score',
      ],
    });
    const skipped = await run((t) => t.skip("no ticket today"));
    expect(skipped).toMatchObject({ verdict: "skipped", skipReason: "no ticket today" });
    expect(skipped.error).toBeUndefined();
  });

  it("puts facts, adapter assertions and tools on t; usage is evidence", async () => {
    const record = await run((t) => {
      t.check(t.status, equals("closed")).gate();
      t.closed().score(2);
      t.check(t.usage.totalTokens, atMost(120)).gate().label("tokens");
      t.check(t.usage.costUsd, atMost(1)).label("cost");
      t.check(t.elapsedMs, atMost(10_000)).gate().label("time");
    });
    expect(record.verdict).toBe("passed");
    expect(record.usage.app.totalTokens).toEqual({ state: "available", value: 120 });
    const cost = record.judgments.find((j) => j.label === "cost")!;
    expect(cost).toMatchObject({ state: "unavailable", gate: false, points: 0, earned: null });
    expect(cost.reason).toMatch(/usage-unreported: the adapter never reported costUsd/);
    expect(record.score).toEqual({ state: "complete", earned: 2, max: 2, reasons: [] });
  });

  it("reports an assertion with neither gate nor score as information", async () => {
    const record = await run((t) => {
      t.check(t.status, equals("open"));
    });
    expect(record.verdict).toBe("passed");
    expect(record.judgments[0]).toMatchObject({
      state: "mismatched",
      gate: false,
      points: 0,
      earned: 0,
      label: 'equals "open"',
    });
  });

  it("retains earned points when a gate fails", async () => {
    const record = await run((t) => {
      t.check(t.status, equals("open")).gate().label("still open");
      t.check(t.status, equals("closed")).score(3);
      t.score(0.5, { weight: 4 });
    });
    expect(record.verdict).toBe("failed");
    expect(record.score).toMatchObject({ state: "complete", earned: 5, max: 7 });
  });

  it("refuses calling gate, score or label twice, with a clear authoring error", async () => {
    for (const twice of [
      (t: T) => t.check(t.status, equals("closed")).gate().gate(),
      (t: T) => t.check(t.status, equals("closed")).score(1).score(2),
      (t: T) => t.closed().label("a").label("b"),
    ]) {
      const record = await run(twice);
      expect(record.verdict).toBe("errored");
      expect(record.error?.message).toMatch(
        /was called twice on assertion .* in eval "ticket-desk.ticket-handling"/,
      );
      expect(record.judgments).toHaveLength(1);
    }
    const evaluation = adapter.defineScoreEval({ description: "x", test() {} });
    expect(() => new AuthoringError("x")).not.toThrow();
    expect(evaluation.kind).toBe("score-eval");
  });

  it("says what was given to .score(), t.score and reportUsage: a string quoted, a positional weight, a misspelt key", async () => {
    const where = 't.score(ratio, { weight }) in eval "ticket-desk.ticket-handling"';
    const messages = [];
    for (const test of [
      (t: T) => t.check(t.status, equals("closed")).score("10" as never),
      (t: T) => t.score(0.5, 10 as never),
      (t: T) => t.score(0.5, { wieght: 10 } as never),
      (t: T) => t.score(0.5, { weight: "10" } as never),
    ]) {
      const record = await run(test);
      expect(record.verdict).toBe("errored");
      messages.push(record.error?.message);
    }
    expect(messages).toEqual([
      '.score() on assertion "equals "closed"" (t.check) in eval "ticket-desk.ticket-handling": points must be a finite number > 0, got "10" (a string)',
      `${where}: the weight goes in an options object, as t.score(0.5, { weight: 10 }); got 10`,
      `${where}: unknown key "wieght" (did you mean "weight"?); known keys: weight`,
      `${where}: weight must be a finite number > 0, got "10" (a string)`,
    ]);
    const usage = await defineAdapter({
      name: "usage",
      create: (ctx) => {
        ctx.reportUsage({ inputTokens: "1200" } as never);
        return {};
      },
    })
      .defineScoreEval({ id: "u", description: "u", test() {} })
      .run();
    expect(usage.error?.message).toBe(
      'reportUsage({ inputTokens }) got "1200" (a string); report a finite number >= 0 or leave the field out',
    );
  });

  it("grades t.score ratios: r × weight, unavailable keeps its weight, NaN is unavailable, out of range errors", async () => {
    const record = await run((t) => {
      t.score(0.25, { weight: 8 }).label("quarter");
      t.score({ state: "unavailable", reason: "clock-missing" }, { weight: 10 }).label("missing");
      t.score(Number.NaN, { weight: 1 }).label("nan");
    });
    expect(record.judgments.map((j) => [j.label, j.state, j.earned])).toEqual([
      ["quarter", "matched", 2],
      ["missing", "unavailable", null],
      ["nan", "unavailable", null],
    ]);
    expect(record.score).toMatchObject({ state: "partial", earned: 2, max: 19 });
    expect(record.verdict).toBe("passed");
    const bad = await run((t) => {
      t.score(1.5, { weight: 1 });
    });
    expect(bad.verdict).toBe("errored");
    expect(bad.judgments[0]?.reason).toMatch(/outside 0..1/);
    const gated = await run((t) => {
      t.score(1, { weight: 1 }).gate();
    });
    expect(gated.error?.message).toMatch(/cannot be a gate/);
  });

  it("errors an attempt whose weights, each finite, add up past the largest number: named, never Infinity/Infinity", async () => {
    const record = await run((t) => {
      t.score(1, { weight: 1e308 }).label("a");
      t.score(0, { weight: 1e308 }).label("b");
    });
    expect(record.verdict).toBe("errored");
    const message =
      'its 2 weighted judgments add up past the largest number (1.7976931348623157e+308), so its score cannot be computed: "a" (t.score, 1e+308 points), "b" (t.score, 1e+308 points). Use smaller weights: only their ratios count (weights of 1 and 3 score as 1e300 and 3e300 do)';
    const where = 'the points of eval "ticket-desk.ticket-handling", case "default"';
    expect(record.error).toEqual({ where, message });
    expect(record.score).toEqual({
      state: "unavailable",
      earned: 0,
      max: 0,
      reasons: [`${where}: ${message}`],
    });
    // Each judgment stays finite: one weight of 1e308 earns 1e308, not a rounding's Infinity.
    expect(record.judgments.map((j) => [j.label, j.points, j.earned, j.reason])).toEqual([
      ["a", 1e308, 1e308, "ratio 1 × weight 1e+308 = 1e+308 points"],
      ["b", 1e308, 0, "ratio 0 × weight 1e+308 = 0 points"],
    ]);
    const alone = await run((t) => {
      t.score(1, { weight: 1e308 }).label("a");
    });
    expect(alone.verdict).toBe("passed");
    expect(alone.score).toMatchObject({ state: "complete", earned: 1e308, max: 1e308 });
  });

  it("errors a check whose matcher cannot judge the value's type (undefined, a mis-cased fact, a non-collection): never a complete zero, never the app's failure", async () => {
    const missing = defineAdapter({
      name: "missing",
      create: () => ({
        latencyMs: undefined as unknown as number,
        resolved: undefined as unknown as boolean,
        toolCalls: undefined as unknown as string[],
        miscased: {
          state: "Unavailable",
          reason: "not instrumented",
        } as unknown as NumericMaterial,
        name: "agent",
      }),
    });
    const record = await missing
      .defineScoreEval({
        id: "missing",
        description: "m",
        test(t) {
          t.check(t.latencyMs, atMost(5000)).gate().label("Latency budget");
          t.check(t.resolved, equals(true)).score(10).label("Resolved");
          t.check(t.toolCalls, countWhere(equals("x"), atLeast(1)))
            .score(10)
            .label("Used a tool");
          t.check(t.miscased, atMost(500)).score(10).label("Latency");
          t.check(t.name, not(atMost(3)) as never).label("Name");
          t.score(undefined as unknown as number, { weight: 10 }).label("Ratio");
          t.score({ value: 0.8 } as unknown as number, { weight: 1 }).label("Ratio object");
        },
      })
      .run();
    const byLabel = Object.fromEntries(record.judgments.map((j) => [j.label, j]));
    const undefinedFact =
      '; t.<fact> is undefined when the adapter gave no value for that fact: return it from create, or { state: "unavailable", reason } when the app cannot tell';
    expect(byLabel["Latency budget"]).toMatchObject({
      state: "errored",
      earned: null,
      reason: `observed undefined, but atMost takes a number${undefinedFact}`,
    });
    // equals compares any value: undefined is not true, a real mismatch.
    expect(byLabel.Resolved).toMatchObject({ state: "mismatched", earned: 0 });
    expect(byLabel["Used a tool"]?.reason).toBe(
      `observed undefined, but countWhere takes an array or a material collection${undefinedFact}`,
    );
    expect(byLabel.Latency).toMatchObject({
      state: "errored",
      reason:
        'observed a plain object {"state":"Unavailable","reason":"not instrumented"}, but atMost takes a number; its state "Unavailable" is none niceeval reads (a fact\'s "available" or "unavailable", a collection\'s "complete", "partial" or "unavailable")',
    });
    expect(byLabel.Name).toMatchObject({
      state: "errored",
      reason:
        'observed "agent", but atMost takes a number; fix the value the check is given or the matcher (the app\'s answer was not judged)',
    });
    expect(byLabel.Ratio?.reason).toBe(
      `observed undefined, but t.score takes a ratio (a number from 0 to 1) or a NumericMaterial${undefinedFact}`,
    );
    // An object is named with what it holds: { value: 0.8 } is not "object".
    expect(byLabel["Ratio object"]?.reason).toBe(
      'observed a plain object {"value":0.8}, but t.score takes a ratio (a number from 0 to 1) or a NumericMaterial; fix the value the check is given or the matcher (the app\'s answer was not judged)',
    );
    expect(record.verdict).toBe("errored");
    expect(record.score).toMatchObject({ state: "partial", earned: 0, max: 41 });
  });

  it("errors a check whose combinator (a count, inOrder, and, or) meets a value of the wrong type: never a match, a mismatch or missing evidence", async () => {
    const arr = ["a", "bb", "c"];
    const s = "abc";
    const words = atMost(3) as unknown as BooleanMatch<string>;
    const record = await run((t) => {
      t.check(arr, countWhere(words, atMost(5)))
        .score(1)
        .label("count at most 5");
      t.check(arr, countWhere(words, atLeast(1)))
        .score(1)
        .label("count at least 1");
      t.check(arr, inOrder(words)).score(1).label("in order");
      t.check(s, and(words, includes("z")))
        .score(1)
        .label("and");
      t.check(s, or(words, includes("a")))
        .score(1)
        .label("or");
    });
    const fix =
      "; fix the value the check is given or the matcher (the app's answer was not judged)";
    const onA = 'observed "a", but atMost takes a number';
    const onAbc = 'observed "abc", but atMost takes a number';
    expect(record.judgments.map((j) => [j.label, j.state, j.earned, j.reason])).toEqual([
      ["count at most 5", "errored", null, `countWhere item 0: ${onA}${fix}`],
      ["count at least 1", "errored", null, `countWhere item 0: ${onA}${fix}`],
      ["in order", "errored", null, `inOrder step 1, item 0: ${onA}${fix}`],
      ["and", "errored", null, `and argument 1: ${onAbc}${fix}`],
      ["or", "errored", null, `or argument 1: ${onAbc}${fix}`],
    ]);
    expect(record.verdict).toBe("errored");
  });

  it("makes t.score of an unavailable NumericMaterial without a reason unavailable, as t.check does, keeping the other judgments", async () => {
    const latency = { state: "unavailable" } as unknown as NumericMaterial;
    const record = await run((t) => {
      t.check(t.status, equals("closed")).gate().score(10).label("Answered");
      t.check(latency, atMost(500)).score(5).label("Latency (check)");
      t.score(latency, { weight: 5 }).label("Latency (score)");
    });
    expect(record.error).toBeUndefined();
    expect(record.verdict).toBe("passed");
    expect(record.judgments.map((j) => [j.label, j.state, j.reason])).toEqual([
      ["Answered", "matched", 'observed "closed"'],
      ["Latency (check)", "unavailable", "unavailable"],
      ["Latency (score)", "unavailable", "unavailable"],
    ]);
    expect(record.score).toMatchObject({ state: "partial", earned: 10, max: 20 });
    // A hand-made match whose result has no reason: the judgment's reason is its state.
    const mute = {
      kind: "match",
      name: "mute",
      expects: "anything",
      evaluate: () => ({ state: "unavailable", name: "mute", expected: "anything" }),
    } as unknown as BooleanMatch<string>;
    const muted = await run((t) => {
      t.check(t.status, mute).score(1);
    });
    expect(muted.judgments[0]?.reason).toBe("unavailable");
    expect(muted.score.reasons).toEqual(["anything: unavailable"]);
  });

  it("makes a crashing match an errored judgment and keeps the others", async () => {
    const crashing = {
      ...atLeast(0),
      evaluate: () => {
        throw new Error("boom");
      },
    };
    const record = await run((t) => {
      t.check(t.status, equals("closed")).score(1);
      t.check({ state: "available", value: 1 }, crashing).label("crash");
    });
    expect(record.judgments[0]).toMatchObject({ state: "matched", earned: 1 });
    expect(record.judgments[1]).toMatchObject({
      state: "errored",
      reason: expect.stringMatching(/boom/),
    });
    expect(record.verdict).toBe("errored");
  });

  it("gives no score to a test that threw before it ended: its later checks were never made", async () => {
    for (const test of [
      (t: T) => {
        t.score(1, { weight: 4 }).label("Tone");
        throw new Error("no answer");
      },
      async (t: T) => {
        t.score(1, { weight: 4 }).label("Tone");
        await Promise.resolve();
        throw new Error("no answer");
      },
    ]) {
      const record = await run(test as (t: T) => void);
      expect(record.verdict).toBe("errored");
      expect(record.judgments[0]).toMatchObject({ label: "Tone", earned: 4 });
      expect(record.score).toMatchObject({ state: "unavailable", earned: 4, max: 4 });
      expect(record.score.reasons.at(-1)).toMatch(
        /threw before it ended; the checks after it were never made/,
      );
    }
  });
});

describe("calls on t after the test ended", () => {
  const late = async (call: (t: T) => unknown) => {
    let done: Promise<unknown> | undefined;
    const record = await run((t) => {
      t.score(1, { weight: 1 }).label("a");
      const early = t.check(t.status, equals("closed"));
      // Not awaited: it runs after test returned.
      done = new Promise((resolve) => setTimeout(resolve, 5)).then(() =>
        call(Object.assign(t, { early })),
      );
    });
    return {
      record,
      error: await done!.then(
        () => undefined,
        (error: unknown) => error,
      ),
    };
  };

  it("throws an authoring error naming the eval and case instead of dropping the evidence", async () => {
    const { record, error } = await late((t) =>
      t.check(t.status, equals("open")).gate().label("late gate"),
    );
    expect(record.verdict).toBe("passed");
    expect(error).toBeInstanceOf(AuthoringError);
    expect((error as Error).message).toBe(
      't.check(...) in eval "ticket-desk.ticket-handling", case "default" was called after test(t) had already ended, so what it records would be lost; await the work that calls it (e.g. `await promise`) before test returns',
    );
  });

  it("refuses every call that records evidence: score, closeQA, skip, the adapter's assertions, a handle's gate, score and label", async () => {
    type Late = T & { early: ReturnType<T["check"]> };
    const calls: [string, (t: Late) => unknown][] = [
      ["t.score(...)", (t) => t.score(0, { weight: 5 })],
      ["t.closeQA(...)", (t) => t.closeQA("text", "Is it fine?")],
      ["t.skip(...)", (t) => t.skip("n/a")],
      ["t.closed(...)", (t) => t.closed()],
      ['.gate() on assertion "equals "closed"" (t.check)', (t) => t.early.gate()],
      ['.score() on assertion "equals "closed"" (t.check)', (t) => t.early.score(3)],
      ['.label() on assertion "equals "closed"" (t.check)', (t) => t.early.label("x")],
    ];
    for (const [name, call] of calls) {
      const { error } = await late(call as (t: T) => unknown);
      expect(error, name).toBeInstanceOf(AuthoringError);
      expect((error as Error).message, name).toContain(
        `${name} in eval "ticket-desk.ticket-handling", case "default" was called after test(t) had already ended`,
      );
    }
  });

  it("names the trial when the eval runs several, and accepts calls the test awaited", async () => {
    let done: Promise<unknown> | undefined;
    const evaluation = adapter.defineScoreEval({
      description: "trials",
      trials: 3,
      async test(t) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        t.check(t.status, equals("closed")).gate().label("awaited");
        done = new Promise((resolve) => setTimeout(resolve, 5)).then(() =>
          t.check(t.status, equals("open")).gate(),
        );
      },
    });
    const record = await evaluation.runCase(
      { id: "default", index: 0 },
      { runId: "r", signal: new AbortController().signal, trial: 1 },
    );
    expect(record.judgments.map((j) => j.label)).toEqual(["awaited"]);
    await expect(done).rejects.toThrow(
      'in eval "ticket-desk.trials", case "default" [trial 2] was called after test(t) had already ended',
    );
  });
});

describe("defineEval (pass/fail)", () => {
  it("makes every assertion a gate and refuses points", async () => {
    const passFail = adapter.defineEval({
      description: "Ticket closes",
      test(t) {
        t.check(t.status, equals("open")).label("open");
      },
    });
    expect(passFail.kind).toBe("pass-fail-eval");
    const record = await passFail.run();
    expect(record.verdict).toBe("failed");
    expect(record.judgments[0]).toMatchObject({ gate: true, points: 0 });
    const scored = await adapter
      .defineEval({
        description: "x",
        test: (t) => void t.check(t.status, equals("closed")).score(1),
      })
      .run();
    expect(scored.error?.message).toMatch(/pass\/fail only/);
  });
});

describe("create failures", () => {
  it("a create that times out makes the attempt errored and aborts its signal", async () => {
    let aborted = false;
    const slow = defineAdapter({
      name: "slow",
      create: (ctx) =>
        new Promise<Facts>((resolve) => {
          ctx.signal.addEventListener("abort", () => {
            aborted = true;
          });
          setTimeout(
            () => resolve({ status: "late", notes: { state: "complete", items: [] } }),
            500,
          );
        }),
    });
    const record = await slow
      .defineScoreEval({ description: "slow", timeoutMs: 20, test() {} })
      .run();
    expect(record.verdict).toBe("errored");
    expect(record.error?.message).toMatch(/timed out after 20 ms/);
    expect(record.score.state).toBe("unavailable");
    expect(aborted).toBe(true);
    // The next eval is unaffected.
    expect((await run((t) => t.closed().gate())).verdict).toBe("passed");
  });

  it("run({ signal }) cancelled while create ran is errored as interrupted, not passed on a cut-short answer", async () => {
    const partial = defineAdapter({
      name: "partial",
      // Gives up with what it has when told to stop, as a well-behaved application does.
      create: (ctx) =>
        new Promise<{ answer: string }>((resolve) => {
          ctx.signal.addEventListener("abort", () => resolve({ answer: "" }));
        }),
    });
    const evaluation = partial.defineScoreEval({
      description: "partial",
      test(t) {
        t.check(t.answer, equals("")).gate();
      },
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("cancelled by the caller")), 20);
    const record = await evaluation.run({ signal: controller.signal });
    expect(record.verdict).toBe("errored");
    expect(record.error).toMatchObject({
      interrupted: true,
      message: expect.stringContaining(
        "the run was stopped (cancelled by the caller) while this attempt ran; its passed verdict is not kept",
      ),
    });
    expect(record.score.state).toBe("unavailable");
    // Not cancelled: the same eval passes.
    const done = defineAdapter({ name: "done", create: async () => ({ answer: "yes" }) });
    const fine = await done
      .defineScoreEval({
        description: "done",
        test(t) {
          t.check(t.answer, equals("yes")).gate();
        },
      })
      .run({
        signal: new AbortController().signal,
      });
    expect(fine.verdict).toBe("passed");
  });

  it("run({ signal }) cancelled while create's fetch, given ctx.signal, waited on a server is errored as interrupted", async () => {
    // A loopback server that answers only after the caller has given up.
    const server = createServer((_request, response) => {
      const timer = setTimeout(() => response.end('{"answer":"late"}'), 5_000);
      response.on("close", () => clearTimeout(timer));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const fetchy = defineAdapter({
      name: "fetchy",
      create: async (ctx) => {
        const response = await fetch(`http://127.0.0.1:${port}/chat`, { signal: ctx.signal });
        return (await response.json()) as { answer: string };
      },
    });
    const evaluation = fetchy.defineScoreEval({ description: "abort mid", test() {} });
    try {
      // The fetch rejects with the abort's reason, or with an AbortError when none is given.
      for (const reason of [new Error("user cancelled"), undefined]) {
        const controller = new AbortController();
        setTimeout(() => controller.abort(reason), 50);
        const record = await evaluation.run({ signal: controller.signal });
        expect(record.verdict).toBe("errored");
        expect(record.error).toMatchObject({
          interrupted: true,
          where: 'create of adapter "fetchy" (eval "fetchy.abort-mid")',
          message: expect.stringContaining(reason ? "user cancelled" : "aborted"),
        });
        expect(record.score.state).toBe("unavailable");
      }
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  // A test(t) that awaited something that never came was stopped only by the last-resort limit
  // (the timeout + 1 s), as a crash whose message said to set --timeout, and lost its checks.
  it("stops a test that does not end at the attempt's limit, keeping the checks it made", async () => {
    const app = defineAdapter({
      name: "waits",
      create: () => ({ answer: { state: "available", value: 1 } as const }),
    });
    const record = await app
      .defineScoreEval({
        description: "waits",
        timeoutMs: 30,
        async test(t) {
          t.check(t.answer, equals(1)).score(1).label("before");
          await new Promise(() => {});
        },
      })
      .run();
    expect(record.verdict).toBe("errored");
    expect(record.error).toMatchObject({
      where: 'test of eval "waits.waits"',
      message: expect.stringMatching(/^test timed out after 30 ms; raise /),
    });
    expect(record.judgments.map((j) => [j.label, j.state])).toEqual([["before", "matched"]]);
    expect(record.score.reasons.at(-1)).toBe(
      'test of eval "waits.waits" timed out after 30 ms before it ended; the checks after it were never made',
    );
  });

  it("lets run() options override the eval's timeout", async () => {
    const slow = defineAdapter({
      name: "slow2",
      create: () => new Promise<object>((resolve) => setTimeout(() => resolve({}), 200)),
    });
    const evaluation = slow.defineScoreEval({ description: "slow", timeoutMs: 10_000, test() {} });
    expect((await evaluation.run({ timeoutMs: 10 })).error?.message).toMatch(
      /timed out after 10 ms/,
    );
  });

  it("hands create the attempt's ids and rejects invalid usage reports", async () => {
    let seen: unknown;
    const probe = defineAdapter({
      name: "probe",
      create: (ctx) => {
        seen = { runId: ctx.runId, evalId: ctx.evalId, caseId: ctx.caseId };
        ctx.reportUsage({ totalTokens: -1 });
        return {};
      },
    });
    const record = await probe
      .defineScoreEval({ id: "probe", description: "p", test() {} })
      .run({ runId: "run-7" });
    expect(seen).toEqual({ runId: "run-7", evalId: "probe", caseId: "default" });
    expect(record.error?.message).toMatch(/reportUsage\(\{ totalTokens \}\) got -1/);
  });

  it("refuses an adapter without a name, saying what it got", () => {
    expect(() => defineAdapter({ create: () => ({}) } as never)).toThrow(
      "defineAdapter: `name` must be a non-empty string, the adapter's name in reports; got undefined",
    );
    expect(() => defineAdapter({ name: "  ", create: () => ({}) })).toThrow(
      'defineAdapter: `name` must be a non-empty string, the adapter\'s name in reports; got "  "',
    );
  });

  it("run() refuses an empty run id, naming the eval and the option", async () => {
    const quiet = defineAdapter({ name: "quiet", create: () => ({}) });
    const review = quiet.defineScoreEval({ id: "quiet", description: "q", test() {} });
    await expect(review.run({ runId: "" })).rejects.toMatchObject({
      code: "USAGE",
      message: expect.stringContaining(
        "(…).run: `runId` must be a non-empty string naming the run, got an empty string; pass an id of your own, or leave it out for a local one",
      ),
    });
  });

  it("refuses reportUsage keys it does not take, with a did-you-mean, and a total below input + output", async () => {
    const reporting = (usage: Record<string, number>) =>
      defineAdapter({
        name: "usage",
        create: (ctx) => {
          ctx.reportUsage(usage);
          return {};
        },
      })
        .defineScoreEval({
          id: "usage-typo",
          description: "u",
          test(t) {
            t.check(t.usage.totalTokens, atLeast(0)).gate();
          },
        })
        .run();
    const snake = await reporting({ input_tokens: 40_000, output_tokens: 20_000 });
    expect(snake.verdict).toBe("errored");
    expect(snake.error).toEqual({
      where: 'create of adapter "usage" (eval "usage-typo")',
      message:
        'reportUsage(...) got unknown keys "input_tokens" (did you mean "inputTokens"?) and "output_tokens" (did you mean "outputTokens"?); known keys: inputTokens, outputTokens, totalTokens, costUsd',
    });
    const short = await reporting({ inputTokens: 500, outputTokens: 500, totalTokens: 100 });
    expect(short.error?.message).toBe(
      "reportUsage({ inputTokens: 500, outputTokens: 500, totalTokens: 100 }): totalTokens is less than inputTokens + outputTokens (1000); report the total the provider gave, or leave totalTokens out and it is their sum",
    );
    const fine = await reporting({ inputTokens: 500, outputTokens: 500, totalTokens: 1200 });
    expect(fine.verdict).toBe("passed");
    expect(fine.usage.app.totalTokens).toEqual({ state: "available", value: 1200 });
  });

  it("adds each report's own total: one left out is that report's input + output", async () => {
    const totalOf = async (...reports: UsageReport[]) => {
      const record = await defineAdapter({
        name: "calls",
        create: (ctx) => {
          for (const report of reports) ctx.reportUsage(report);
          return {};
        },
      })
        .defineScoreEval({ id: "calls", description: "u", test() {} })
        .run();
      return record.usage.app.totalTokens;
    };
    const total = (value: number) => ({ state: "available", value });
    // A call that reported its total beside one that did not, in either order.
    const plain = { inputTokens: 10, outputTokens: 5 };
    const full = { inputTokens: 20, outputTokens: 20, totalTokens: 50 };
    expect(await totalOf(plain, full)).toEqual(total(65));
    expect(await totalOf(full, plain)).toEqual(total(65));
    expect(await totalOf(plain, { totalTokens: 100 })).toEqual(total(115));
    expect(await totalOf({ inputTokens: 10 }, { outputTokens: 5 })).toEqual(total(15));
    // Unavailable, saying which count would have given it.
    expect(await totalOf({ inputTokens: 10 })).toEqual({
      state: "unavailable",
      reason:
        "usage-unreported: the adapter never reported totalTokens, nor outputTokens to add to its inputTokens (ctx.reportUsage)",
    });
  });
});

describe("facts named as a test tool", () => {
  it("errors the attempt instead of letting t.elapsedMs or t.usage replace the app's own fact", async () => {
    const app = defineAdapter({
      name: "shadow",
      // @ts-expect-error refused by the type too; this checks the run-time refusal (JS, casts)
      create: (ctx) => {
        ctx.reportUsage({ inputTokens: 5, outputTokens: 5 });
        return { elapsedMs: 90_000, usage: { totalTokens: 50_000 }, answer: "ok" };
      },
    });
    let ran = false;
    const record = await app
      .defineScoreEval({
        id: "shadowed",
        description: "app timing",
        test(t) {
          ran = true;
          t.check(t.elapsedMs, atMost(60_000)).gate();
        },
      })
      .run();
    expect(ran).toBe(false);
    expect(record.verdict).toBe("errored");
    expect(record.score.state).toBe("unavailable");
    expect(record.error?.where).toBe('adapter "shadow"');
    expect(record.error?.message).toBe(
      'the facts that create returned for eval "shadowed" have the keys "usage" and "elapsedMs", names taken by the test context\'s own t.usage and t.elapsedMs, so t.usage would not be the fact; rename the facts (e.g. "appUsage")',
    );
    expect(record.usage.app.totalTokens).toEqual({ state: "available", value: 10 });
    // @ts-expect-error refused by the type too
    const one = await defineAdapter({ name: "one", create: () => ({ skip: true }) })
      .defineScoreEval({ id: "one", description: "o", test() {} })
      .run();
    expect(one.error?.message).toMatch(
      /the key "skip", a name taken by .* own t\.skip, .*rename the fact \(e\.g\. "appSkip"\)$/,
    );
  });
});

// A create that returns a number, a string or an array (a forgotten object literal, a returned
// status code) ran the test with no facts, and every check judged undefined as the app's answer.
// A fact whose state is misspelt ("availble") was compared as a plain object: equals(1) gave a
// mismatch, a zero for the app, although the app's answer was never judged.
describe("evidence whose state niceeval does not read", () => {
  it("errors the check, naming the state, instead of judging the wrapper as the value", async () => {
    const record = await defineAdapter({
      name: "typo",
      create: () => ({ f: { state: "availble", value: 1 } as never, order: { state: "shipped" } }),
    })
      .defineScoreEval({
        id: "typo",
        description: "t",
        test(t) {
          t.check(t.f, equals(1)).score(1).label("typo");
          t.check(t.order, equals({ state: "shipped" }))
            .score(1)
            .label("own state");
        },
      })
      .run();
    const [typo, own] = record.judgments;
    expect(typo).toMatchObject({ state: "errored" });
    expect(typo?.reason).toBe(
      'observed {"state":"availble","value":1}, whose state "availble" is none niceeval reads (a fact\'s "available" or "unavailable", a collection\'s "complete", "partial" or "unavailable"); fix the state the adapter gives (the app\'s answer was not judged)',
    );
    expect(own).toMatchObject({ state: "matched" });
  });
});

describe("a create that returns no object of facts", () => {
  it("errors the attempt, saying what create returned; returning nothing stays an adapter without facts", async () => {
    for (const [returned, shown] of [
      [200, "200 (a number)"],
      ["ok", '"ok" (a string)'],
      [[{ id: 1 }], "an array"],
    ] as const) {
      let ran = false;
      const record = await defineAdapter({ name: "status", create: () => returned as never })
        .defineScoreEval({
          id: "status",
          description: "s",
          test() {
            ran = true;
          },
        })
        .run();
      expect(ran).toBe(false);
      expect(record.verdict).toBe("errored");
      expect(record.error?.where).toBe('adapter "status"');
      expect(record.error?.message).toBe(
        `create returned ${shown} for eval "status", not an object of facts; return the facts as an object (e.g. { answer: { state: "available", value } }), or nothing when the adapter has no facts`,
      );
    }
    const none = await defineAdapter({ name: "none", create: async () => undefined as never })
      .defineScoreEval({
        id: "none",
        description: "n",
        test(t) {
          t.score(1, { weight: 1 });
        },
      })
      .run();
    expect(none.verdict).toBe("passed");
  });
});

describe("assertions named as a test tool or as a fact", () => {
  it("errors the attempt instead of letting t.check replace the adapter's own, or an assertion hide a fact", async () => {
    let ran = false;
    const tooled = defineAdapter({
      name: "voice",
      create: () => ({ said: "hello" }),
      // @ts-expect-error refused by the type too; this checks the run-time refusal (JS, casts)
      assertions: ({ check }) => ({ check: (m: string) => check("x", equals(m)) }),
    });
    const record = await tooled
      .defineScoreEval({
        id: "tooled",
        description: "voice check",
        test() {
          ran = true;
        },
      })
      .run();
    expect(ran).toBe(false);
    expect(record.verdict).toBe("errored");
    expect(record.score.state).toBe("unavailable");
    expect(record.error?.where).toBe('adapter "voice"');
    // The adapter is the error's `where`, named once where the two are shown together.
    expect(record.error?.message).toBe(
      'its assertion "check" has a name taken by the test context\'s own t.check, so the test would never call it; rename it in `assertions`',
    );
    const hiding = defineAdapter({
      name: "speech",
      create: () => ({ said: "hello", heard: "hi" }),
      // @ts-expect-error refused by the type too; this checks the run-time refusal (JS, casts)
      assertions: ({ check }) => ({ said: (m: string) => check("said", equals(m)) }),
    });
    const hidden = await hiding
      .defineScoreEval({ id: "hidden", description: "speech", test() {} })
      .run();
    expect(hidden.verdict).toBe("errored");
    expect(hidden.error).toEqual({
      where: 'adapter "speech"',
      message:
        'the facts that create returned for eval "hidden" have the key "said", also the name of an assertion, so t.said would be the assertion and the fact could not be read; rename the fact or the assertion',
    });
  });
});

describe("t.closeQA", () => {
  const ask = (judge?: CloseQAJudge, maxMaterialBytes = 64 * 1024) =>
    adapter
      .defineScoreEval({
        description: "Notes quality",
        ...(judge ? { judge } : {}),
        test(t) {
          t.closeQA(notes, "Are the notes fine?", { maxMaterialBytes, maxAuditBytes: 200 })
            .score(10)
            .label("q");
        },
      })
      .run();
  const only = async (judge?: CloseQAJudge, bytes?: number): Promise<Judgment> =>
    (await ask(judge, bytes)).judgments[0]!;

  it("is unavailable with judge-unconfigured when no judge is set", async () => {
    const judgment = await only();
    expect(judgment).toMatchObject({ state: "unavailable", points: 10, earned: null });
    expect(judgment.reason).toMatch(/^judge-unconfigured/);
  });

  it("uses the registry's default judge, and the eval's judge wins over it", async () => {
    const registry: CloseQAJudge = async () => ({ state: "not-satisfied", reason: "registry" });
    setDefaultCloseQAJudge(registry);
    try {
      expect(await only()).toMatchObject({ state: "mismatched", earned: 0, reason: "registry" });
      expect(await only(async () => ({ state: "satisfied", reason: "own" }))).toMatchObject({
        state: "matched",
        earned: 10,
      });
    } finally {
      setDefaultCloseQAJudge(undefined);
    }
  });

  it("maps insufficient and unavailable answers to unavailable, and a throw to errored", async () => {
    expect((await only(async () => ({ state: "insufficient", reason: "too short" }))).state).toBe(
      "unavailable",
    );
    expect(
      (await only(async () => ({ state: "unavailable", reason: "rate-limited" }))).reason,
    ).toBe("rate-limited");
    const thrown = await only(async () => {
      throw new Error("socket hang up");
    });
    expect(thrown).toMatchObject({
      state: "errored",
      reason: "closeQA judge threw: socket hang up",
    });
    const nothing = await only(async () => null as never);
    expect(nothing).toMatchObject({
      state: "errored",
      reason:
        "closeQA judge answered null, not { state, reason }: a CloseQAJudge resolves to a CloseQAAnswer",
    });
  });

  it("is capacity-limited when the material is over maxMaterialBytes, without calling the judge", async () => {
    let called = false;
    const judgment = await only(async () => {
      called = true;
      return { state: "satisfied", reason: "" };
    }, 4);
    expect(judgment.reason).toMatch(
      /^capacity-limited: material is \d+ bytes, over maxMaterialBytes 4/,
    );
    expect(called).toBe(false);
  });

  it("captures the judge's usage through the ledger and drops an oversized audit explicitly", async () => {
    const judgment = await only(async ({ material }) => {
      recordJudgeUsage({ calls: 1, inputTokens: 50, outputTokens: 5, latencyMs: 3 });
      return { state: "satisfied", reason: "fine", audit: { material, padding: "y".repeat(500) } };
    });
    expect(judgment.judge).toEqual({
      ...emptyJudgeUsage(),
      calls: 1,
      inputTokens: 50,
      outputTokens: 5,
      latencyMs: 3,
    });
    expect(judgment.detail).toMatchObject({
      audit: { dropped: expect.stringMatching(/^capacity-limited: audit/) },
    });
  });
  it("takes a limit or a usage field given as undefined as one left out", async () => {
    const maybe: { bytes?: number } = {};
    const record = await adapter
      .defineScoreEval({
        description: "Undefined limits",
        judge: async () => {
          recordJudgeUsage({
            calls: 1,
            inputTokens: 4,
            cachedCalls: undefined,
            costUsd: undefined,
          });
          return { state: "satisfied", reason: "fine", usage: undefined };
        },
        test(t) {
          t.closeQA(notes, "Are the notes fine?", {
            maxMaterialBytes: maybe.bytes,
            maxAuditBytes: undefined,
          }).score(1);
        },
      })
      .run();
    // Before: `{ ...defaults, ...options }` made each limit undefined ("must be a whole number of
    // bytes > 0, got undefined"), and a usage spread over the empty one counted NaN cached calls.
    expect(record.error).toBeUndefined();
    expect(record.judgments[0]).toMatchObject({ state: "matched", earned: 1 });
    expect(record.judgments[0]?.judge).toEqual({ ...emptyJudgeUsage(), calls: 1, inputTokens: 4 });
  });
});

describe("runCase", () => {
  it("reports each judgment and adds judge usage to the attempt's ledger", async () => {
    const evaluation = adapter.defineScoreEval({
      description: "ledger",
      judge: async () => ({
        state: "satisfied",
        reason: "ok",
        usage: { ...emptyJudgeUsage(), calls: 1, inputTokens: 9 },
      }),
      test(t) {
        t.closeQA("plain text material", "Is it fine?").score(1);
        t.check(t.status, equals("open")).label("info");
      },
    });
    const ledger = emptyJudgeUsage();
    const seen: string[] = [];
    const record = await evaluation.runCase(
      { id: "default", index: 0 },
      {
        runId: "r",
        signal: new AbortController().signal,
        judgeUsage: ledger,
        onJudgment: (j) => seen.push(j.state),
      },
    );
    expect(seen).toEqual(["matched", "mismatched"]);
    expect(ledger.inputTokens).toBe(9);
    expect(record.output).toBeUndefined();
    const kept = await evaluation.runCase(
      { id: "default", index: 0 },
      { runId: "r", signal: new AbortController().signal, keepOutput: true },
    );
    expect(kept.output).toMatchObject({ status: "closed" });
    expect(record.usage.judge.calls).toBe(1);
  });
});

describe("t.skip", () => {
  it("stops the test and marks the attempt skipped, with the reason", async () => {
    let after = false;
    const record = await run((t) => {
      t.check(t.status, equals("closed")).gate().label("closed");
      t.skip("the ticket was closed by an operator, not the agent");
      after = true;
    });
    expect(after).toBe(false);
    expect(record.verdict).toBe("skipped");
    expect(record.skipReason).toBe("the ticket was closed by an operator, not the agent");
    expect(record.judgments.map((j) => j.label)).toEqual(["closed"]);
  });

  it("leaves the attempt without a score, as a throw does: the checks after t.skip were never made", async () => {
    const record = await run((t) => {
      t.check(t.status, equals("closed")).score(10).label("closed");
      t.skip("n/a");
    });
    expect(record.verdict).toBe("skipped");
    expect(record.judgments[0]).toMatchObject({ label: "closed", earned: 10 });
    expect(record.score).toEqual({
      state: "unavailable",
      earned: 10,
      max: 10,
      reasons: ["skipped (n/a): t.skip stopped the test, so the checks after it were never made"],
    });
  });

  it("does not hide a gate that already failed", async () => {
    const record = await run((t) => {
      t.check(t.status, equals("open")).gate();
      t.skip("too late");
    });
    expect(record.verdict).toBe("failed");
  });

  // JavaScript callers: the reason is shown wherever the attempt is (console, show, the viewer).
  it.each([
    ["no reason", undefined, "undefined"],
    ["a number", 42, "42"],
    ["an empty string", "", '""'],
  ])("errors the attempt, naming it, when given %s instead of a reason", async (_, reason, got) => {
    const record = await run((t) => {
      (t.skip as (reason?: unknown) => never)(reason);
    });
    expect(record.verdict).toBe("errored");
    expect(record.skipReason).toBeUndefined();
    expect(record.error?.message).toContain(
      `t.skip needs a reason, a non-empty string saying why the case does not apply; got ${got}`,
    );
  });

  it("still skips when the test catches what t.skip throws, and counts nothing recorded after it", async () => {
    const record = await run((t) => {
      t.check(t.status, equals("closed")).gate().label("before");
      try {
        t.skip("n/a");
      } catch {}
      t.check(t.status, equals("open")).gate().label("after");
    });
    expect(record.verdict).toBe("skipped");
    expect(record.skipReason).toBe("n/a");
    expect(record.judgments.map((j) => j.label)).toEqual(["before"]);
  });
});
