import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runEvals } from "../runner/run.js";
import { scoreSchema } from "../score/score.js";
import {
  createScorer,
  evalScorersProvider,
  exactMatch,
  exactMatchImpl,
  exactMatchTool,
  jsonSchemaValidTool,
  lexiconHitRateTool,
  llmJudgeTool,
  makeLlmJudgeDriver,
  makeOutlineFidelityDriver,
  outlineFidelityTool,
  styleScorersProvider,
  textStatsTool,
} from "../scorers/index.js";
import { defineDriver, defineTool, implementTool } from "../tool/tool.js";
import type { AttemptRecord } from "./record.js";
import { bindScorer, CaseIds, defineSuite } from "./suite.js";

const ran = createScorer({ name: "ran", score: () => ({ score: 1 }) });

describe("defineSuite", () => {
  it("awaits a mapInput that returns a promise, and errors its scorer alone when it rejects", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const suite = defineSuite<string, string>({
      id: "async-map",
      cases: [
        { id: "same", input: "a", expected: "a" },
        { id: "other", input: "b", expected: "a" },
      ],
      target: (input) => input,
      scorers: [
        bindScorer<string, { actual: string; expected: string }>({
          id: "later",
          tool: exactMatchTool,
          driver: evalScorersProvider,
          mapInput: async ({ output, expected }) => {
            await settle(5);
            return { actual: output, expected: String(expected) };
          },
        }),
        bindScorer<string, { actual: string; expected: string }>({
          id: "refused",
          tool: exactMatchTool,
          driver: evalScorersProvider,
          mapInput: async () => {
            await settle(5);
            throw new Error("reference not found");
          },
        }),
      ],
      gates: ["later"],
    });
    const records: AttemptRecord[] = [];
    try {
      await runEvals([{ eval: suite }], { onRecord: (r) => records.push(r) });
      await settle(20);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
    const judged = Object.fromEntries(
      records.map((r) => [
        r.caseId,
        r.judgments.map(({ label, state, reason }) => ({ label, state, reason })),
      ]),
    );
    // The awaited input is the one the tool judged; the rejection is its scorer's, with its reason.
    const refused = {
      label: "refused",
      state: "errored",
      reason: 'scorer "refused" threw: reference not found',
    };
    expect(judged).toEqual({
      same: [{ label: "later", state: "matched", reason: "actual equals expected" }, refused],
      other: [expect.objectContaining({ label: "later", state: "mismatched" }), refused],
    });
    expect(records.map((r) => r.verdict)).toEqual(["errored", "errored"]);
    expect(unhandled).toEqual([]);
  });

  it("reports a scorer that could not judge as errored, not as the output's failure", async () => {
    const suite = defineSuite<number, { doc: unknown }>({
      id: "schema-errors",
      cases: [{ id: "bad-schema", input: 1 }],
      target: () => ({ doc: { id: 1 } }),
      scorers: [
        bindScorer({
          id: "schema",
          tool: jsonSchemaValidTool,
          driver: evalScorersProvider,
          mapInput: ({ output }) => ({ actual: output.doc, schema: { type: "no-such-type" } }),
        }),
      ],
    });
    const records: AttemptRecord[] = [];
    await runEvals([{ eval: suite }], { onRecord: (r) => records.push(r) });
    expect(records[0]?.verdict).toBe("errored");
    expect(records[0]?.judgments[0]).toMatchObject({ state: "errored", earned: null });
    expect(records[0]?.judgments[0]?.reason).toMatch(/scorer "schema": invalid schema/);
  });

  it("reports a custom judge's malformed verdict as errored, never as the answer's failure", async () => {
    const suite = defineSuite<string, string>({
      id: "malformed-judge",
      cases: [{ id: "outline-seven", input: "x" }],
      target: (input) => input,
      scorers: [
        bindScorer({
          id: "outline",
          tool: outlineFidelityTool,
          driver: makeOutlineFidelityDriver(async () => ({ value: 7 })),
          mapInput: ({ output }) => ({ outline: "1. Intro", answer: output }),
        }),
      ],
    });
    const records: AttemptRecord[] = [];
    await runEvals([{ eval: suite }], { onRecord: (r) => records.push(r) });
    expect(records[0]?.verdict).toBe("errored");
    expect(records[0]?.judgments[0]).toMatchObject({ state: "errored", earned: null });
    expect(records[0]?.judgments[0]?.reason).toMatch(/malformed judge verdict \(\{ value: 7 \}\)/);
  });

  it("writes a score just below its threshold with the digits that show it below, never '0.5 < threshold 0.5'", async () => {
    const suite = defineSuite<string, string>({
      id: "rounding",
      cases: [{ id: "a", input: "x" }],
      target: (input) => input,
      scorers: [
        createScorer({ name: "justbelow", score: () => ({ score: 0.49999 }) }),
        createScorer({ name: "above", score: () => ({ score: 0.61234 }) }),
      ],
    });
    const records: AttemptRecord[] = [];
    await runEvals([{ eval: suite }], { onRecord: (r) => records.push(r) });
    expect(records[0]?.judgments.map(({ label, reason }) => ({ label, reason }))).toEqual([
      { label: "justbelow", reason: "0.49999 < threshold 0.5" },
      { label: "above", reason: "0.612 >= threshold 0.5" },
    ]);
  });

  it("records what caused a target's error, as a fetch to a port it may not use throws it", async () => {
    const suite = defineSuite<string, string>({
      id: "caused",
      cases: [{ id: "a", input: "x" }],
      target: async () => (await fetch("http://127.0.0.1:1/v1/chat")).text(),
      scorers: [
        bindScorer({
          id: "any",
          tool: jsonSchemaValidTool,
          driver: evalScorersProvider,
          mapInput: ({ output }) => ({ actual: output, schema: {} }),
        }),
      ],
    });
    const records: AttemptRecord[] = [];
    await runEvals([{ eval: suite }], { onRecord: (r) => records.push(r) });
    expect(records[0]?.error?.message).toBe("TypeError: fetch failed (cause: bad port)");
  });

  it("errors the target or the scorer that threw a value that throws when asked what it is, not the case", async () => {
    // A Proxy whose every trap throws: even `instanceof` on it throws.
    const unreadable = () =>
      new Proxy(
        {},
        new Proxy(
          {},
          {
            get: () => {
              throw new Error("trap");
            },
          },
        ),
      );
    const suite = defineSuite<number, number>({
      id: "proxies",
      cases: [
        { id: "target", input: 1 },
        { id: "scorer", input: 2 },
      ],
      target: (n) => {
        if (n === 1) throw unreadable();
        return n;
      },
      scorers: [
        createScorer({ name: "ok", score: () => ({ score: 1 }) }),
        createScorer({
          name: "proxy",
          score: () => {
            throw unreadable();
          },
        }),
      ],
    });
    const records: AttemptRecord[] = [];
    await runEvals([{ eval: suite }], { onRecord: (r) => records.push(r) });
    const said = "a thrown object that cannot be read (asking what it is threw: trap)";
    expect(records[0]?.error?.message).toBe(said);
    expect(records[0]?.error?.where).toBe('target of case "target" in eval "proxies"');
    expect(records[1]?.judgments.map((j) => [j.label, j.state, j.reason])).toEqual([
      ["ok", "matched", "1 >= threshold 0.5"],
      ["proxy", "errored", `scorer "proxy" threw: ${said}`],
    ]);
  });

  it("gives the target its trial and a trace that lands on the record", async () => {
    const suite = defineSuite<string, string>({
      id: "traced",
      cases: [{ id: "a", input: "x", cluster: "doc-1" }],
      trials: 2,
      target: (input, { trial, trace }) => {
        trace.message("user", input);
        trace.toolCall("lookup", { q: input }, { output: trial });
        return `${input}-${trial}`;
      },
      scorers: [ran],
    });
    const records: AttemptRecord[] = [];
    await runEvals([{ eval: suite }], { keepOutput: true, onRecord: (r) => records.push(r) });
    expect(records.map((r) => [r.trial ?? 0, r.output, r.cluster])).toEqual([
      [0, "x-0", "doc-1"],
      [1, "x-1", "doc-1"],
    ]);
    expect(records[1]?.trace?.steps).toEqual([
      { kind: "message", role: "user", content: "x" },
      { kind: "tool-call", name: "lookup", input: { q: "x" }, output: 1 },
    ]);
  });
});

describe("the trace of a target that fails", () => {
  it("keeps the steps traced before the target threw, synchronously or not, or ran out of time", async () => {
    const suite = defineSuite<string, string>({
      id: "crashing",
      cases: [
        { id: "sync", input: "s" },
        { id: "async", input: "a" },
        { id: "slow", input: "t" },
      ],
      target: (input, { trace }) => {
        trace.message("user", input);
        trace.toolCall("search", { q: input }, { error: "rate limited" });
        if (input === "s") throw new Error("gave up");
        if (input === "a") return Promise.reject(new Error("gave up later"));
        return new Promise<string>(() => {});
      },
      scorers: [ran],
    });
    const records: AttemptRecord[] = [];
    await runEvals([{ eval: suite }], { timeoutMs: 50, onRecord: (r) => records.push(r) });
    expect(records.map((r) => r.verdict)).toEqual(["errored", "errored", "errored"]);
    for (const [i, record] of records.entries()) {
      expect(record.trace?.steps).toEqual([
        { kind: "message", role: "user", content: ["s", "a", "t"][i] },
        {
          kind: "tool-call",
          name: "search",
          input: { q: ["s", "a", "t"][i] },
          error: "rate limited",
        },
      ]);
    }
  });
});

describe("synchronous and asynchronous targets and scorers", () => {
  const exact = (id: string, later = false) =>
    bindScorer<string, { actual: string; expected: string }>({
      id,
      tool: exactMatchTool,
      driver: later
        ? defineDriver({
            id: "later",
            implementations: [implementTool(exactMatchTool, async (input) => exactMatch(input))],
          })
        : evalScorersProvider,
      mapInput: ({ output, expected }) => ({ actual: output, expected: String(expected) }),
    });
  const throws = bindScorer<string, { actual: string; expected: string }>({
    id: "throws",
    tool: exactMatchTool,
    driver: evalScorersProvider,
    mapInput: () => {
      throw new Error("no input");
    },
  });
  const invalid = bindScorer<string, { actual: string; expected: string }>({
    id: "invalid",
    tool: exactMatchTool,
    driver: evalScorersProvider,
    mapInput: () => ({ actual: 1 as never, expected: "x" }),
  });
  const late = createScorer<string, unknown>({
    name: "late",
    score: async ({ output }) => ({ score: output === "b" ? 1 : 0 }),
  });
  const run = async (target: (input: string) => string | Promise<string>) => {
    const suite = defineSuite<string, string>({
      id: "mixed",
      cases: [
        { id: "a", input: "a", expected: "a" },
        { id: "b", input: "b", expected: "x" },
        { id: "boom", input: "boom" },
      ],
      target,
      scorers: [exact("now"), late, exact("later", true), throws, invalid],
      gates: ["now", "later"],
    });
    const seen: AttemptRecord[] = [];
    await runEvals([{ eval: suite }], { onRecord: (r) => seen.push(r) });
    return seen.map((r) => ({
      caseId: r.caseId,
      verdict: r.verdict,
      score: r.score,
      // The stack of a throw differs by the frames that called it, synchronously or not.
      error: r.error && { message: r.error.message, where: r.error.where },
      judgments: r.judgments.map(({ label, state, gate, earned, reason }) => ({
        label,
        state,
        gate,
        earned,
        reason,
      })),
    }));
  };

  it("gives the same records in scorer order whichever answers first", async () => {
    const fail = (input: string) => {
      if (input === "boom") throw new Error("boom");
      return input;
    };
    const now = await run(fail);
    const later = await run(async (input) => fail(input));
    expect(later).toEqual(now);
    expect(now.map((r) => [r.caseId, r.verdict])).toEqual([
      ["a", "errored"],
      ["b", "errored"],
      ["boom", "errored"],
    ]);
    expect(now[0]?.judgments).toMatchObject([
      { label: "now", state: "matched", gate: true },
      { label: "late", state: "mismatched", gate: false },
      { label: "later", state: "matched", gate: true },
      { label: "throws", state: "errored", reason: 'scorer "throws" threw: no input' },
      { label: "invalid", state: "errored", gate: false },
    ]);
    expect(now[0]?.judgments[4]?.reason).toMatch(/invalid input for tool "eval.exact-match"/);
    expect(now[1]?.judgments.map((j) => j.state).slice(0, 3)).toEqual([
      "mismatched",
      "matched",
      "mismatched",
    ]);
    expect(now[2]?.error?.message).toBe("boom");
  });
});

describe("createScorer scorers judged at once or later", () => {
  it("give the same judgments whether the callback answers synchronously or not", async () => {
    const judgmentsOf = async (later: boolean) => {
      const answer = <T>(value: T): T | Promise<T> => (later ? Promise.resolve(value) : value);
      const scorers = [
        createScorer<string, string>({
          name: "same",
          score: ({ output, expected }) => answer({ score: output === expected ? 1 : 0 }),
        }),
        createScorer<string, string>({
          name: "throws",
          score: () => {
            if (later) return Promise.reject(new Error("no score"));
            throw new Error("no score");
          },
        }),
        createScorer<string, string>({
          name: "bare",
          score: () => answer(0.5 as never),
        }),
        createScorer<string, string>({ name: "none", score: () => answer({ score: null }) }),
      ];
      const suite = defineSuite<string, string>({
        id: later ? "later" : "now",
        cases: [{ id: "a", input: "a", expected: "a" }],
        target: (input) => input,
        scorers,
      });
      const records: AttemptRecord[] = [];
      await runEvals([{ eval: suite }], { onRecord: (r) => records.push(r) });
      return records[0]!.judgments.map(({ label, state, earned, reason }) => ({
        label,
        state,
        earned,
        reason,
      }));
    };
    const now = await judgmentsOf(false);
    expect(await judgmentsOf(true)).toEqual(now);
    expect(now.map((j) => [j.label, j.state])).toEqual([
      ["same", "matched"],
      ["throws", "errored"],
      ["bare", "errored"],
      ["none", "mismatched"],
    ]);
    expect(now[1]?.reason).toMatch(/no score/);
    expect(now[2]?.reason).toMatch(/return \{ score: 0.5 \} instead of 0.5/);
  });
});

describe("a createScorer scorer whose withRuntime was replaced", () => {
  it("is scored through the replacement, as before the synchronous path", async () => {
    const scorer = createScorer<string, string>({ name: "spied", score: () => ({ score: 0 }) });
    let calls = 0;
    const replaced = Object.assign(scorer, {
      withRuntime: () => async () => {
        calls++;
        return { name: "spied", score: 1 };
      },
    });
    const suite = defineSuite<string, string>({
      id: "spy",
      cases: [{ id: "a", input: "a", expected: "a" }],
      target: (input) => input,
      scorers: [replaced],
    });
    const records: AttemptRecord[] = [];
    await runEvals([{ eval: suite }], { onRecord: (r) => records.push(r) });
    expect(calls).toBe(1);
    expect(records[0]?.verdict).toBe("passed");
  });
});

describe("a suite's definition", () => {
  it("refuses two scorers of one name, naming the suite, the name and where they are", () => {
    const contains = (needle: string) =>
      createScorer<string, string>({
        name: "contains",
        score: ({ output }) => ({ score: output.includes(needle) ? 1 : 0 }),
      });
    expect(() =>
      defineSuite({
        id: "dup",
        cases: [{ input: "Paris" }],
        target: (input: string) => input,
        scorers: [ran, contains("Paris"), contains("Berlin")],
      }),
    ).toThrow(
      /^defineSuite\("dup"\): scorers\[1\] and scorers\[2\] are both named "contains"; .*give each its own/,
    );
    const bound = bindScorer<string, { actual: string; expected: string }>({
      id: "ran",
      tool: exactMatchTool,
      driver: evalScorersProvider,
      mapInput: ({ output }) => ({ actual: output, expected: output }),
    });
    expect(() =>
      defineSuite({
        id: "mixed",
        cases: [{ input: "x" }],
        target: (i: string) => i,
        scorers: [ran, bound],
      }),
    ).toThrow(/scorers\[0\] and scorers\[1\] are both named "ran"/);
  });

  it("is read again when it changes between runs, even in place", async () => {
    const fails = createScorer({ name: "fails", score: () => ({ score: 0 }) });
    const definition = {
      id: "changing",
      cases: [{ id: "a", input: 1 }],
      target: (input: number) => input,
      scorers: [ran, fails],
      gates: ["ran", "fails"],
    };
    const suite = defineSuite<number, number>(definition);
    const verdicts = async () => {
      const seen: AttemptRecord[] = [];
      await runEvals([{ eval: suite }], { onRecord: (r) => seen.push(r) });
      return seen.map((r) => [r.verdict, r.judgments.map((j) => j.gate)]);
    };
    expect(await verdicts()).toEqual([["failed", [true, true]]]);
    definition.gates.pop();
    expect(await verdicts()).toEqual([["passed", [true, false]]]);
    definition.scorers[1] = ran;
    expect(await verdicts()).toEqual([["passed", [true, true]]]);
  });
});

describe("authoring errors are errored cases, not failures", () => {
  const records = async (suite: ReturnType<typeof defineSuite>) => {
    const seen: AttemptRecord[] = [];
    await runEvals([{ eval: suite }], { onRecord: (r) => seen.push(r) });
    return seen;
  };
  const suiteOf = (cases: unknown[], scorers = [ran]) =>
    defineSuite<unknown, unknown>({
      id: "authoring",
      cases: cases as never,
      target: (input) => input,
      scorers,
    });

  it("errors a null item naming its index, and runs the cases after it", async () => {
    const seen = await records(suiteOf([{ id: "a", input: 1 }, null, { id: "c", input: 3 }]));
    expect(seen.map((r) => [r.caseId, r.verdict])).toEqual([
      ["a", "passed"],
      ["case-2", "errored"],
      ["c", "passed"],
    ]);
    expect(seen[1]?.error?.message).toMatch(/case 2 \(index 1\) is null/);
  });

  it("takes a number id as its string and rejects empty, control-character and other ids", async () => {
    const seen = await records(
      suiteOf([
        { id: 7, input: 1 },
        { id: "", input: 1 },
        { id: "a\nb", input: 1 },
        { id: { x: 1 }, input: 1 },
        { id: Number.NaN, input: 1 },
      ]),
    );
    expect(seen.map((r) => [r.caseId, r.verdict])).toEqual([
      ["7", "passed"],
      ["case-2", "errored"],
      ["case-3", "errored"],
      ["case-4", "errored"],
      ["case-5", "errored"],
    ]);
    expect(seen[1]?.error?.message).toMatch(/empty id/);
    expect(seen[2]?.error?.message).toMatch(/control character \(U\+000A\)/);
    expect(seen[3]?.error?.message).toMatch(/non-empty string or a finite number/);
  });

  it("rejects an id holding half a character (a lone surrogate), which no store keeps as it is", async () => {
    const seen = await records(
      suiteOf([
        { id: "cut 👩".slice(0, -1), input: 1 },
        { id: "👩".slice(1), input: 1 },
        { id: "whole 👩", input: 1 },
      ]),
    );
    expect(seen.map((r) => [r.caseId, r.verdict])).toEqual([
      ["case-1", "errored"],
      ["case-2", "errored"],
      ["whole 👩", "passed"],
    ]);
    expect(seen[0]?.error?.message).toBe(
      'case 1 (index 0) has id "cut \\ud83d", which holds a lone surrogate (U+D83D), half of a character (text cut inside an emoji?), which a store cannot keep as it is; use whole characters',
    );
    expect(seen[1]?.error?.message).toMatch(/lone surrogate \(U\+DC69\)/);
  });

  it("errors a case with a key a case does not have, naming it and the key it meant", async () => {
    const seen = await records(
      suiteOf([
        { id: "ok", input: 1, expected: 1, metadata: { topic: "x" }, cluster: "doc" },
        { id: "vars", vars: { prompt: "p" }, expected: 1 },
        { inputs: 1 },
        { id: "expect", input: 1, expect: 1 },
      ]),
    );
    expect(seen.map((r) => [r.caseId, r.verdict])).toEqual([
      ["ok", "passed"],
      ["vars", "errored"],
      ["case-3", "errored"],
      ["expect", "errored"],
    ]);
    expect(seen[1]?.error?.message).toBe(
      'case "vars" (index 1) has unknown key "vars" (did you mean "input"?); known keys: id, input, expected, metadata, cluster; a field the scorers read goes in metadata',
    );
    expect(seen[1]?.error?.where).toBe('cases of eval "authoring"');
    expect(seen[2]?.error?.message).toMatch(
      /^case "case-3" \(index 2\) has unknown key "inputs" \(did you mean "input"\?\)/,
    );
    expect(seen[3]?.error?.message).toMatch(/unknown key "expect" \(did you mean "expected"\?\)/);
  });

  it("takes a case that gives its optional keys as undefined", async () => {
    const seen = await records(
      suiteOf([{ id: undefined, input: 1, expected: undefined, metadata: undefined }]),
    );
    expect(seen.map((r) => [r.caseId, r.verdict])).toEqual([["case-1", "passed"]]);
  });

  it("never lets a generated id collide with a given one", async () => {
    const seen = await records(
      suiteOf([{ input: 1 }, { id: "case-1", input: 2 }, { input: 3 }, { id: "case-3", input: 4 }]),
    );
    expect(seen.map((r) => [r.caseId, r.verdict])).toEqual([
      ["case-1-2", "passed"],
      ["case-1", "passed"],
      ["case-3-2", "passed"],
      ["case-3", "passed"],
    ]);
    // A stream's later ids are unknown: a given id an earlier case was generated is refused.
    const streamed = defineSuite<unknown, unknown>({
      id: "streamed",
      cases: function* () {
        yield { id: "case-2", input: 1 };
        yield { input: 2 };
        yield { input: 3 };
        yield { id: "case-3", input: 4 };
      },
      target: (input) => input,
      scorers: [ran],
    });
    const ids = await records(streamed as never);
    expect(ids.map((r) => [r.caseId, r.verdict])).toEqual([
      ["case-2", "passed"],
      ["case-2-2", "passed"],
      ["case-3", "passed"],
      ["case-4", "errored"],
    ]);
    expect(ids[3]?.error?.message).toMatch(
      /"case-3", which was already given to case 3 \(index 2\) because it had none/,
    );
  });

  it("refuses the id that stands for a dataset that could not be read", async () => {
    const seen = await records(
      suiteOf([
        { id: "(cases)", input: 1 },
        { id: "b", input: 2 },
      ]),
    );
    expect(seen.map((r) => [r.caseId, r.verdict])).toEqual([
      ["case-1", "errored"],
      ["b", "passed"],
    ]);
    expect(seen[0]?.error?.message).toMatch(
      /case 1 \(index 0\) has id "\(cases\)", which stands for an eval whose cases could not be read/,
    );
  });

  it("reads cases given as a promise, or by an async function that returns them", async () => {
    const suiteGiven = (cases: unknown) =>
      defineSuite<unknown, unknown>({
        id: "given",
        cases: cases as never,
        target: (input) => input,
        scorers: [ran],
      }) as never;
    const list = [
      { id: "a", input: 1 },
      { id: "b", input: 2 },
    ];
    const given = [
      Promise.resolve(list),
      async () => list,
      async () =>
        (function* () {
          yield* list;
        })(),
      () => Promise.resolve(new Set(list)),
    ];
    for (const cases of given) {
      const seen = await records(suiteGiven(cases));
      expect(seen.map((r) => [r.caseId, r.verdict])).toEqual([
        ["a", "passed"],
        ["b", "passed"],
      ]);
    }
    // A loader that fails, or gives something that is not a list, is the eval's errored dataset.
    for (const [cases, message] of [
      [async () => Promise.reject(new Error("db down")), /db down/],
      [async () => ({ rows: list }), /gave an object that is not iterable; pass an array/],
      [
        Promise.resolve(5),
        /gave 5; pass an array, an iterable or an async iterable of cases, a promise of one/,
      ],
    ] as const) {
      const seen = await records(suiteGiven(cases));
      expect(seen.map((r) => [r.caseId, r.verdict])).toEqual([["(cases)", "errored"]]);
      expect(seen[0]?.error?.message).toMatch(message);
    }
  });

  it("takes a cases promise that fails before it is read as its eval's error, not an unhandled rejection", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const suite = defineSuite<unknown, unknown>({
        id: "loader",
        cases: Promise.reject(new Error("db down")) as never,
        target: (input) => input,
        scorers: [ran],
      });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
      const seen = await records(suite as never);
      expect(seen.map((r) => [r.caseId, r.verdict])).toEqual([["(cases)", "errored"]]);
      expect(seen[0]?.error?.message).toMatch(/db down/);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("makes a suite with no cases or no scorers an errored eval with a message", async () => {
    const empty = await records(suiteOf([]));
    expect(empty).toHaveLength(1);
    expect(empty[0]).toMatchObject({ verdict: "errored" });
    expect(empty[0]?.error?.message).toMatch(/has no cases/);
    const unscored = await records(suiteOf([{ id: "a", input: 1 }], []));
    expect(unscored[0]?.error?.message).toMatch(
      /^eval "\S+" cannot run: defineSuite\(.*has no scorers/,
    );
  });

  it("errors a scorer that returns the wrong shape instead of scoring 0", async () => {
    const wrong = createScorer({ name: "wrong", score: () => "yes" as never });
    const seen = await records(suiteOf([{ id: "a", input: 1 }], [wrong]));
    expect(seen[0]?.judgments[0]).toMatchObject({ state: "errored", earned: null });
    expect(seen[0]?.verdict).toBe("errored");
  });

  it("rejects NaN, Infinity and out-of-range numbers naming the option", () => {
    const base = { id: "n", cases: [{ input: 1 }], target: () => 1, scorers: [ran] };
    expect(() => defineSuite({ ...base, concurrency: Number.NaN })).toThrow(/`concurrency`.*NaN/);
    expect(() => defineSuite({ ...base, concurrency: 2000 })).toThrow(/from 1 to 1024/);
    expect(() => defineSuite({ ...base, timeoutMs: Number.POSITIVE_INFINITY })).toThrow(
      /`timeoutMs`.*Infinity/,
    );
    expect(() => defineSuite({ ...base, timeoutMs: 3_000_000_000 })).toThrow(/`timeoutMs`/);
    expect(() => defineSuite({ ...base, trials: 0 })).toThrow(/`trials`/);
    for (const threshold of [Number.NaN, 2, -1, "0.5"])
      expect(() => defineSuite({ ...base, threshold: threshold as number })).toThrow(
        `defineSuite("n"): \`threshold\` must be a number from 0 to 1 (the score a case needs to pass), got ${threshold === "0.5" ? '"0.5"' : String(threshold)}`,
      );
    expect(defineSuite({ ...base, threshold: 0 }).id).toBe("n");
    expect(defineSuite({ ...base, threshold: 1 }).id).toBe("n");
  });

  it("refuses a binding whose driver is not one when it is bound, not on every case", () => {
    const binding = {
      id: "exact",
      tool: exactMatchTool,
      mapInput: () => ({ actual: "a", expected: "a" }),
    };
    expect(() => bindScorer({ ...binding, driver: exactMatchImpl as never })).toThrow(
      'bindScorer("exact"): `driver` is a tool implementation, not a driver: bundle it with defineDriver({ id, implementations: [it] })',
    );
    expect(() => bindScorer({ ...binding, driver: undefined as never })).toThrow(
      'bindScorer("exact"): `driver` is undefined, not a driver (defineDriver\'s result, such as evalScorersProvider)',
    );
  });

  it("refuses a driver that does not implement the tool when it is bound, naming the one that does", () => {
    const judge = async () => ({ value: 1 });
    const mapInput = () => ({ output: "a", criteria: "c" });
    expect(() =>
      bindScorer({
        id: "exact",
        tool: exactMatchTool,
        driver: styleScorersProvider,
        mapInput: () => ({ actual: "a", expected: "a" }),
      }),
    ).toThrow(
      'bindScorer("exact"): `driver` niceeval.style-scorers does not implement tool "eval.exact-match"; pass driver: evalScorersProvider (import { evalScorersProvider } from "niceeval/scorers")',
    );
    expect(() =>
      bindScorer({ id: "judged", tool: llmJudgeTool, driver: evalScorersProvider, mapInput }),
    ).toThrow(
      'bindScorer("judged"): `driver` niceeval.eval-scorers does not implement tool "eval.llm-judge"; pass driver: makeLlmJudgeDriver(judge) (import { makeLlmJudgeDriver } from "niceeval/scorers")',
    );
    // A tool of one's own: a driver of one's own implements it.
    const echo = defineTool({
      id: "demo.echo",
      description: "echo",
      inputSchema: z.string(),
      outputSchema: scoreSchema,
    });
    expect(() =>
      bindScorer({ id: "echo", tool: echo, driver: evalScorersProvider, mapInput: () => "a" }),
    ).toThrow(
      'bindScorer("echo"): `driver` niceeval.eval-scorers does not implement tool "demo.echo"; pass as `driver` a driver that implements it: defineDriver({ id, implementations: [implementTool(tool, run)] })',
    );
    expect(
      bindScorer({ id: "judged", tool: llmJudgeTool, driver: makeLlmJudgeDriver(judge), mapInput })
        .toolId,
    ).toBe("eval.llm-judge");
  });

  it("errors a judgment whose tool answers something that is not a Score, naming the tool", async () => {
    const tool = (id: string, answer: unknown) => {
      const defined = defineTool({
        id,
        description: id,
        inputSchema: z.string(),
        outputSchema: z.unknown(),
      });
      const driver = defineDriver({
        id: `${id}.driver`,
        implementations: [implementTool(defined, () => answer)],
      });
      return bindScorer({ id, tool: defined as never, driver, mapInput: ({ output }) => output });
    };
    const suite = defineSuite<string, string>({
      id: "not-scores",
      cases: [{ id: "c", input: "a" }],
      target: (input) => input,
      scorers: [
        tool("demo.echo", "a"),
        tool("demo.five", { value: 5, passed: true, label: "five" }),
        tool("demo.unlabelled", { value: 1, passed: true }),
        tool("demo.fine", { value: 1, passed: true, label: "fine" }),
      ],
    });
    const records: AttemptRecord[] = [];
    await runEvals([{ eval: suite }], { onRecord: (r) => records.push(r) });
    expect(records[0]?.verdict).toBe("errored");
    expect(records[0]?.judgments.map((j) => [j.state, j.reason])).toEqual([
      [
        "errored",
        'scorer "demo.echo": its tool demo.echo returned "a", not a Score; a scorer\'s tool returns a Score { value: 0..1, passed, label } (scoreSchema)',
      ],
      [
        "errored",
        'scorer "demo.five": its tool demo.five returned a value of 5, not a number from 0 to 1; a scorer\'s tool returns a Score { value: 0..1, passed, label } (scoreSchema)',
      ],
      [
        "errored",
        'scorer "demo.unlabelled": its tool demo.unlabelled returned a label of undefined, not a string; a scorer\'s tool returns a Score { value: 0..1, passed, label } (scoreSchema)',
      ],
      ["matched", "passed"],
    ]);
  });

  it("binds the French text scorers with evalScorersProvider, as every other deterministic one", async () => {
    const suite = defineSuite<string, string>({
      id: "style",
      cases: [
        {
          id: "c",
          input: "Je pense que la réunion s'est bien passée. Nous avons validé le budget.",
        },
      ],
      target: (input) => input,
      scorers: [
        bindScorer<string, { text: string }>({
          id: "stats",
          tool: textStatsTool,
          driver: evalScorersProvider,
          mapInput: ({ output }) => ({ text: output }),
        }),
        bindScorer<string, { text: string; lexicon: string[] }>({
          id: "lexicon",
          tool: lexiconHitRateTool,
          driver: evalScorersProvider,
          mapInput: ({ output }) => ({ text: output, lexicon: ["budget", "réunion"] }),
        }),
      ],
    });
    const seen: AttemptRecord[] = [];
    await runEvals([{ eval: suite }], { onRecord: (r) => seen.push(r) });
    expect(seen[0]?.judgments.map((j) => [j.label, j.state])).toEqual([
      ["stats", "matched"],
      ["lexicon", "matched"],
    ]);
  });

  it("refuses a binding without id, mapInput or tool when it is bound, not on every case", () => {
    const { mapInput: _, ...withoutMap } = {
      id: "exact",
      tool: exactMatchTool,
      driver: evalScorersProvider,
      mapInput: () => ({ actual: "a", expected: "a" }),
    };
    expect(() => bindScorer(withoutMap as never)).toThrow(
      'bindScorer("exact"): `mapInput` must be a function from { output, expected, input, … } to the input of tool "eval.exact-match", got nothing',
    );
    expect(() =>
      bindScorer({ ...withoutMap, tool: "eval.exact-match", mapInput: () => ({}) } as never),
    ).toThrow('bindScorer("exact"): `tool` must be a tool made by defineTool');
    const { id: _id, ...withoutId } = { ...withoutMap, mapInput: () => ({}) };
    expect(() => bindScorer(withoutId as never)).toThrow(
      "bindScorer: `id` must be a non-empty string, the scorer's name in reports; got undefined",
    );
    // No binding at all: what it takes, not the first field it lacks.
    expect(() => bindScorer(undefined as never)).toThrow(
      "bindScorer: pass { id, tool, driver, mapInput }, got undefined",
    );
  });
});

describe("the attempt's time limit", () => {
  it("errors a scorer still running at the limit and keeps the finished ones", async () => {
    const hangs = createScorer({ name: "hangs", score: () => new Promise<never>(() => {}) });
    const suite = defineSuite<number, number>({
      id: "limits",
      cases: [{ id: "a", input: 1 }],
      target: (input) => input,
      scorers: [ran, hangs],
      timeoutMs: 50,
    });
    const seen: AttemptRecord[] = [];
    await runEvals([{ eval: suite }], { onRecord: (r) => seen.push(r) });
    const [record] = seen;
    expect(record?.judgments.map((j) => [j.label, j.state])).toEqual([
      ["ran", "matched"],
      ["hangs", "errored"],
    ]);
    expect(record?.judgments[1]?.reason).toMatch(/scorer "hangs" timed out after 50 ms/);
    expect(record?.elapsedMs).toBeGreaterThanOrEqual(45);
  });

  it("keeps a bound scorer's tool as the source of its judgment when it throws or runs out of time", async () => {
    const bound = (id: string, answer: () => Promise<never>) =>
      bindScorer<number, { actual: string; expected: string }>({
        id,
        tool: exactMatchTool,
        driver: defineDriver({
          id: `${id}-driver`,
          implementations: [implementTool(exactMatchTool, answer)],
        }),
        mapInput: () => ({ actual: "a", expected: "a" }),
      });
    const suite = defineSuite<number, number>({
      id: "bound-limits",
      cases: [{ id: "a", input: 1 }],
      target: (input) => input,
      scorers: [
        bound("throws", () => Promise.reject(new Error("no answer"))),
        bound("hangs", () => new Promise<never>(() => {})),
      ],
      timeoutMs: 50,
    });
    const seen: AttemptRecord[] = [];
    await runEvals([{ eval: suite }], { onRecord: (r) => seen.push(r) });
    expect(seen[0]?.judgments.map((j) => [j.label, j.state, j.source])).toEqual([
      ["throws", "errored", "eval.exact-match"],
      ["hangs", "errored", "eval.exact-match"],
    ]);
  });

  it("times out the target and aborts its signal, with the real elapsed time", async () => {
    let signalled = false;
    const suite = defineSuite<number, number>({
      id: "slow-target",
      cases: [{ id: "a", input: 1 }],
      target: (_input, { signal }) =>
        new Promise<never>(() => {
          signal.addEventListener("abort", () => {
            signalled = true;
          });
        }),
      scorers: [ran],
    });
    const seen: AttemptRecord[] = [];
    await runEvals([{ eval: suite }], { timeoutMs: 40, onRecord: (r) => seen.push(r) });
    expect(seen[0]?.error?.message).toMatch(/^the target timed out after 40 ms/);
    expect(seen[0]?.elapsedMs).toBeGreaterThanOrEqual(35);
    expect(signalled).toBe(true);
  });
});

describe("a case's input", () => {
  type Input = { n: number; tags: string[] };
  /** A target and two scorers that change what they are given, and what each saw. */
  const changing = (sync: boolean) => {
    const seen: { target: Input[]; scorers: Input[] } = { target: [], scorers: [] };
    const answer = <T>(value: T) => (sync ? value : Promise.resolve(value));
    // Two scorers of their own names (one suite may not give two scorers one name).
    const changes = (name: string) =>
      createScorer<number, unknown, { input: Input }>({
        name,
        score: ({ input }) => {
          seen.scorers.push(structuredClone(input));
          const pristine = input.n === 2 && input.tags.length === 1;
          input.n = 1234;
          input.tags.push("scorer");
          return answer({ score: pristine ? 1 : 0 });
        },
      });
    const suite = defineSuite<Input, number>({
      id: sync ? "changes-now" : "changes-later",
      cases: [{ id: "c", input: { n: 2, tags: ["a"] } }],
      target: (input) => {
        seen.target.push(structuredClone(input));
        input.n = 99;
        input.tags.push("target");
        return answer(input.n);
      },
      scorers: [changes("sees the case"), changes("sees the case too")],
    });
    return { suite, seen };
  };

  for (const sync of [true, false]) {
    it(`is each attempt's own: no scorer, trial or record sees what the target or a scorer changed (${sync ? "synchronous" : "asynchronous"})`, async () => {
      const { suite, seen } = changing(sync);
      const records: AttemptRecord[] = [];
      await runEvals([{ eval: suite }], {
        trials: 3,
        concurrency: 1,
        keepCase: true,
        onRecord: (r) => records.push(r),
      });
      const asDefined = { n: 2, tags: ["a"] };
      expect(seen.target).toEqual([asDefined, asDefined, asDefined]);
      expect(seen.scorers).toEqual(Array.from({ length: 6 }, () => asDefined));
      expect(records.map((r) => r.verdict)).toEqual(["passed", "passed", "passed"]);
      expect(records.map((r) => r.input)).toEqual([asDefined, asDefined, asDefined]);
    });
  }

  it("has an expected value no scorer, trial or record sees another scorer change", async () => {
    const seen: unknown[] = [];
    const changes = (name: string) =>
      createScorer<string, { tags: string[] }>({
        name,
        score: ({ expected }) => {
          seen.push(structuredClone(expected));
          const pristine = expected?.tags.length === 1;
          expected?.tags.push(name);
          return { score: pristine ? 1 : 0 };
        },
      });
    const suite = defineSuite<string, string, { tags: string[] }>({
      id: "changes-expected",
      cases: [{ id: "c", input: "x", expected: { tags: ["a"] } }],
      target: (input) => input,
      scorers: [changes("first"), changes("second")],
    });
    const records: AttemptRecord[] = [];
    await runEvals([{ eval: suite }], {
      trials: 3,
      concurrency: 1,
      keepCase: true,
      onRecord: (r) => records.push(r),
    });
    const asDefined = { tags: ["a"] };
    expect(seen).toEqual(Array.from({ length: 6 }, () => asDefined));
    expect(records.map((r) => r.verdict)).toEqual(["passed", "passed", "passed"]);
    expect(records.map((r) => r.expected)).toEqual([asDefined, asDefined, asDefined]);
  });

  it("is passed as it is when it is a primitive, a class instance or holds a function", async () => {
    class Box {
      constructor(readonly n: number) {}
      twice() {
        return this.n * 2;
      }
    }
    const fn = { n: 3, double: (x: number) => x * 2 };
    const given: unknown[] = [];
    const suite = defineSuite<unknown, unknown>({
      id: "as-is",
      cases: [
        { id: "number", input: 7 },
        { id: "box", input: new Box(4) },
        { id: "fn", input: fn },
      ],
      target: (input) => {
        given.push(input);
        return input instanceof Box ? input.twice() : input;
      },
      scorers: [ran],
    });
    const records: AttemptRecord[] = [];
    await runEvals([{ eval: suite }], { onRecord: (r) => records.push(r) });
    expect(records.map((r) => r.verdict)).toEqual(["passed", "passed", "passed"]);
    expect(given[0]).toBe(7);
    expect(given[1]).toBeInstanceOf(Box);
    expect(given[2]).toBe(fn);
  });
});

describe("CaseIds", () => {
  // The rules, written plainly: every given id kept in a set.
  class Reference {
    private readonly given = new Set<string>();
    private readonly generated = new Map<string, number>();
    constructor(known: readonly (string | undefined)[]) {
      for (const id of known) if (id !== undefined) this.given.add(id);
    }
    generate(index: number): string {
      const base = `case-${index + 1}`;
      let id = base;
      for (let n = 2; this.given.has(id) || this.generated.has(id); n++) id = `${base}-${n}`;
      this.generated.set(id, index);
      return id;
    }
    claim(id: string, index: number): string | undefined {
      const taken = this.generated.get(id);
      if (taken !== undefined) {
        return `case ${index + 1} (index ${index}) has id "${id}", which was already given to case ${taken + 1} (index ${taken}) because it had none; give that case an id`;
      }
      this.given.add(id);
      return undefined;
    }
  }

  it("gives and refuses the ids a set of every given id would", () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const shapes = [
      () => undefined,
      () => `case-${Math.floor(random() * 40)}`,
      () => `case-${Math.floor(random() * 40)}-${2 + Math.floor(random() * 3)}`,
      () => `case-0${Math.floor(random() * 9)}`,
      () => `case-${10_000_000 + Math.floor(random() * 3)}`,
      () => `case-${(1 << 22) - 1}`,
      () => `case-${1 << 22}`,
      () => `case-x${Math.floor(random() * 3)}`,
      () => `q${Math.floor(random() * 40)}`,
    ];
    for (let round = 0; round < 200; round++) {
      const ids = Array.from({ length: 30 }, () => shapes[Math.floor(random() * shapes.length)]!());
      const upFront = round % 2 === 0;
      const known = upFront ? ids.map((id) => ({ id })) : [];
      const ours = new CaseIds(known);
      const theirs = new Reference(upFront ? ids : []);
      ids.forEach((id, index) => {
        if (id === undefined) expect(ours.generate(index)).toBe(theirs.generate(index));
        else expect(ours.claim(id, index)).toBe(theirs.claim(id, index));
      });
    }
  });
});
