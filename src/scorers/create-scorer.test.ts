import { afterEach, describe, expect, it } from "vitest";
import { defineSuite } from "../eval/suite.js";
import { openAICompatibleProvider } from "../judge/providers/openai-compatible.js";
import { registerJudgeProvider } from "../judge/resolve.js";
import {
  createScorer,
  isScorer,
  type RuntimeContext,
  runtimeContext,
  ScorerResultError,
} from "./create-scorer.js";

// The createScorer example of viteval's documentation: output and expected of different types.
const correctAnswer = createScorer<{ answer: string }, string>({
  name: "correct-answer",
  score: ({ output, expected }) => ({
    score: output.answer === expected ? 1 : 0,
  }),
});

async function runOne<Output>(
  scorer: Parameters<typeof defineSuite<string, Output>>[0]["scorers"][number],
  target: (input: string) => Output,
  testCase: { input: string; expected?: unknown; metadata?: Record<string, unknown> },
  signal = new AbortController().signal,
) {
  const suite = defineSuite<string, Output>({
    id: "one",
    cases: [],
    target,
    scorers: [scorer],
  });
  const record = await suite.runCase({ id: "c", index: 0, ...testCase }, { runId: "r", signal });
  const [judgment] = record.judgments;
  if (!judgment) throw new Error("no judgment");
  return { record, judgment };
}

describe("createScorer", () => {
  it("runs the documented example and names the scorer and each score with the configured name", async () => {
    expect(correctAnswer.name).toBe("correct-answer");
    expect(isScorer(correctAnswer)).toBe(true);
    expect(await correctAnswer({ output: { answer: "Paris" }, expected: "Paris" })).toEqual({
      name: "correct-answer",
      score: 1,
    });
    expect(await correctAnswer({ output: { answer: "Lyon" }, expected: "Paris" })).toEqual({
      name: "correct-answer",
      score: 0,
    });
  });

  it("replaces a name the callback returns with the configured one and keeps metadata", async () => {
    const scorer = createScorer<string, string>({
      name: "configured",
      score: () => ({ score: 0.5, name: "from-callback", metadata: { why: "half" } }),
    });
    expect(await scorer({ output: "a", expected: "b" })).toEqual({
      name: "configured",
      score: 0.5,
      metadata: { why: "half" },
    });
  });

  it("passes the case's extra fields and its input to the callback at runtime", async () => {
    const seen: unknown[] = [];
    const withinLimit = createScorer<string, string, { input: string; maxLength: number }>({
      name: "within-limit",
      score: ({ output, input, maxLength }) => {
        seen.push({ input, maxLength });
        return { score: output.length <= maxLength ? 1 : 0 };
      },
    });
    const { judgment } = await runOne(withinLimit, (input) => input.toUpperCase(), {
      input: "paris",
      expected: "PARIS",
      metadata: { maxLength: 5 },
    });
    expect(seen).toEqual([{ input: "paris", maxLength: 5 }]);
    expect(judgment).toMatchObject({ label: "within-limit", state: "matched", earned: 1 });
  });

  it("counts a null score as 0 and fails the case on a non-finite score or a throw", async () => {
    const abstain = createScorer<string>({ name: "abstain", score: () => ({ score: null }) });
    expect((await runOne(abstain, (i) => i, { input: "x" })).judgment).toMatchObject({
      state: "mismatched",
      earned: 0,
      value: null,
    });
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY]) {
      const nonFinite = createScorer<string>({ name: "non-finite", score: () => ({ score: bad }) });
      const { record, judgment } = await runOne(nonFinite, (i) => i, { input: "x" });
      expect(judgment.state).toBe("errored");
      expect(judgment.reason).toContain(`non-finite score (${bad})`);
      expect(record.verdict).toBe("errored");
    }
    const throwing = createScorer<string>({
      name: "throwing",
      score: () => {
        throw new Error("no luck");
      },
    });
    const thrown = await runOne(throwing, (i) => i, { input: "x" });
    expect(thrown.judgment.reason).toBe('scorer "throwing" threw: no luck');
    expect(thrown.record.verdict).toBe("errored");
  });

  it("rejects an invalid config when the scorer is created", () => {
    expect(() => createScorer({ name: " ", score: () => ({ score: 1 }) })).toThrow(
      'createScorer: `name` must be a non-empty string, the scorer\'s name in reports; got " "',
    );
    expect(() => createScorer({ score: () => ({ score: 1 }) } as never)).toThrow(
      "createScorer: `name` must be a non-empty string, the scorer's name in reports; got undefined",
    );
    expect(() => createScorer({ name: "x", score: 1 as never })).toThrow(
      'createScorer("x"): `score` must be a function',
    );
    expect(() => createScorer(() => undefined as never)).toThrow(
      "createScorer: the config factory returned undefined; return { name, score }",
    );
  });

  it("says what was passed when it is neither a config nor a factory", () => {
    const expected =
      "createScorer: pass a config { name, score } or a factory (context) => ({ name, score }), got";
    expect(() => createScorer(null as never)).toThrow(`${expected} null`);
    expect(() => (createScorer as () => unknown)()).toThrow(`${expected} undefined`);
    expect(() => createScorer("x" as never)).toThrow(`${expected} "x" (string)`);
  });

  it("says a config factory must be synchronous, as seed 003's is", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const async = async () => ({ name: "a", score: () => ({ score: 1 }) });
      expect(() => createScorer(async as never)).toThrow(
        "createScorer: the config factory returned a promise; a factory must be synchronous and return { name, score } (resolve async dependencies inside `score`, which may be async)",
      );
      const rejecting = async () => {
        throw new Error("no config");
      };
      expect(() => createScorer(rejecting as never)).toThrow("a factory must be synchronous");
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});

describe("what a createScorer callback returns", () => {
  const returning = (value: unknown) =>
    createScorer<string>({ name: "shape", score: () => value as never });

  it("says to return { score } when the callback returns a bare number", async () => {
    const call = returning(0.8)({ output: "a", expected: "a" });
    await expect(call).rejects.toThrow(ScorerResultError);
    await expect(call).rejects.toThrow(
      'scorer "shape" returned the bare number 0.8; return { score: 0.8 } instead of 0.8',
    );
    const { judgment } = await runOne(returning(0.8), (i) => i, { input: "x" });
    expect(judgment.state).toBe("errored");
    // The suite shows the message as is: no "threw", no "non-finite (undefined)".
    expect(judgment.reason).toBe(
      'scorer "shape" returned the bare number 0.8; return { score: 0.8 } instead of 0.8',
    );
  });

  it("says what is wrong with nothing, null, an object without score, or a string score", async () => {
    const args = { output: "a", expected: "a" };
    await expect(returning(undefined)(args)).rejects.toThrow(
      'scorer "shape" returned nothing; return { score }',
    );
    await expect(returning(null)(args)).rejects.toThrow(
      'scorer "shape" returned null; return { score: null } for no score',
    );
    await expect(returning({ value: 1 })(args)).rejects.toThrow(
      'scorer "shape" returned an object without `score` (keys: value); return { score, metadata? }',
    );
    await expect(returning({ score: "0.8" })(args)).rejects.toThrow(
      'scorer "shape" returned { score: "0.8" } (string); `score` must be a number or null',
    );
  });

  it("says so of a BigInt score too, where writing the message threw", async () => {
    await expect(returning({ score: 1n })({ output: "a", expected: "a" })).rejects.toThrow(
      'scorer "shape" returned { score: 1n } (bigint); `score` must be a number or null',
    );
    const { judgment } = await runOne(returning({ score: 1n }), (i) => i, { input: "x" });
    expect(judgment).toMatchObject({
      state: "errored",
      reason: 'scorer "shape" returned { score: 1n } (bigint); `score` must be a number or null',
    });
  });
});

describe("a config factory", () => {
  let unregister: (() => void) | undefined;
  afterEach(() => unregister?.());

  it("receives the run's signal and the judge/model resolution, once per signal", async () => {
    unregister = registerJudgeProvider(
      "factory-test",
      openAICompatibleProvider({ baseURL: "http://127.0.0.1:9/v1" }),
    );
    const contexts: RuntimeContext[] = [];
    const scorer = createScorer<string, string>((context) => {
      contexts.push(context);
      const model = context.resolveModel("factory-test/small");
      return {
        name: "factory",
        score: () => ({
          score: model.ok ? 1 : 0,
          metadata: { aborted: context.signal.aborted, model: model.model },
        }),
      };
    });
    expect(scorer.name).toBe("factory");
    expect(contexts).toHaveLength(1);

    const run = new AbortController();
    const first = await runOne(scorer, (i) => i, { input: "a" }, run.signal);
    const second = await runOne(scorer, (i) => i, { input: "b" }, run.signal);
    expect(contexts).toHaveLength(2);
    expect(contexts[1]?.signal).toBe(run.signal);
    expect(first.judgment).toMatchObject({ state: "matched", earned: 1 });
    expect(second.judgment.detail).toEqual({ aborted: false, model: "factory-test/small" });

    // Another run (another signal) resolves the factory again; the first run's stays cached.
    await runOne(scorer, (i) => i, { input: "c" }, new AbortController().signal);
    expect(contexts).toHaveLength(3);
    await runOne(scorer, (i) => i, { input: "d" }, run.signal);
    expect(contexts).toHaveLength(3);
  });

  it("sees an unconfigured model as a reason, before any call", () => {
    const resolved = runtimeContext().resolveModel("nowhere-provider/model-x");
    expect(resolved.ok).toBe(false);
    if (!resolved.ok) expect(resolved.reason).toContain("registerJudgeProvider");
  });

  it("hands callModel the run's signal", async () => {
    const run = new AbortController();
    run.abort(new Error("run cancelled"));
    unregister = registerJudgeProvider(
      "factory-abort",
      openAICompatibleProvider({ baseURL: "http://127.0.0.1:9/v1" }),
    );
    const context = runtimeContext(run.signal);
    const call = context.callModel("factory-abort/m", {
      system: "s",
      messages: [{ role: "user", content: "hi" }],
      answer: { name: "a", description: "d", schema: { type: "object" } },
      temperature: 0.5,
      maxOutputTokens: 5,
    });
    await expect(call).rejects.toThrow("run cancelled");
  });

  it("says, when the factory throws as the scorer is created, that it runs then and what to move", () => {
    const withoutKey = () =>
      createScorer<string>(() => {
        throw new Error("The OPENAI_API_KEY environment variable is missing");
      });
    expect(withoutKey).toThrow(
      "createScorer: the config factory threw: The OPENAI_API_KEY environment variable is missing; the factory runs as the scorer is created, to learn its name, so what fails there (a client that needs a key) fails the whole file: make such a client on the first call of `score` instead, where a failure errors only this scorer's judgments",
    );
  });

  it("fails the case when the factory throws or changes the scorer's name in a run", async () => {
    let calls = 0;
    const flaky = createScorer<string>(() => {
      calls++;
      if (calls > 1) throw new Error("no client");
      return { name: "flaky", score: () => ({ score: 1 }) };
    });
    const thrown = await runOne(flaky, (i) => i, { input: "x" });
    expect(thrown.judgment.state).toBe("errored");
    expect(thrown.judgment.reason).toContain(
      'createScorer("flaky"): the config factory threw: no client',
    );

    let name = "stable";
    const renaming = createScorer<string>(() => ({ name, score: () => ({ score: 1 }) }));
    name = "renamed";
    const renamed = await runOne(renaming, (i) => i, { input: "x" });
    expect(renamed.judgment.reason).toContain(
      'createScorer("stable"): the config factory returned the name "renamed" for this run',
    );
  });
});

describe("isScorer", () => {
  it("is not confused with plain functions or look-alike objects", () => {
    expect(isScorer(() => 1)).toBe(false);
    expect(isScorer({ kind: "scorer" })).toBe(false);
  });
});
