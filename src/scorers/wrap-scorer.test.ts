import { describe, expect, it } from "vitest";
import { defineSuite } from "../eval/suite.js";
import { createScorer, isScorer, runtimeContext } from "./create-scorer.js";
import { wrapScorer } from "./wrap-scorer.js";

const exactText = createScorer<string>({
  name: "exact-text",
  score: ({ output, expected }) => ({
    score: output === expected ? 1 : 0,
    metadata: { compared: [output, expected] },
  }),
});

describe("wrapScorer", () => {
  // The three uses viteval documents: map expected, map output, map both.
  it("maps an object expected value to the string the inner scorer compares", async () => {
    const bestFruit = wrapScorer(exactText, {
      expected: (e: { good: string; bad: string }) => e.good,
    });
    const expected = { good: "banana", bad: "strawberry" };
    expect(await bestFruit({ output: "banana", expected, input: "best fruit?" })).toMatchObject({
      name: "exact-text",
      score: 1,
    });
    expect(await bestFruit({ output: "strawberry", expected })).toMatchObject({ score: 0 });
  });

  it("maps the task output before the inner scorer sees it", async () => {
    const fromText = wrapScorer(exactText, { output: (o: { text: string }) => o.text });
    expect(await fromText({ output: { text: "hello" }, expected: "hello" })).toEqual({
      name: "exact-text",
      score: 1,
      metadata: { compared: ["hello", "hello"] },
    });
  });

  it("maps both sides", async () => {
    const both = wrapScorer(exactText, {
      output: (o: { text: string }) => o.text,
      expected: (e: { answer: string }) => e.answer,
    });
    expect(await both({ output: { text: "world" }, expected: { answer: "world" } })).toMatchObject({
      score: 1,
    });
    expect(await both({ output: { text: "world" }, expected: { answer: "moon" } })).toMatchObject({
      score: 0,
    });
  });

  it("keeps the inner scorer's name, passes extra fields through and works without mappings", async () => {
    const sawContext = createScorer<string, string, { context?: string }>({
      name: "saw-context",
      score: ({ context }) => ({ score: context === undefined ? 0 : 1 }),
    });
    const wrapped = wrapScorer(sawContext, { expected: (e: { value: string }) => e.value });
    expect(wrapped.name).toBe("saw-context");
    expect(isScorer(wrapped)).toBe(true);
    expect(
      await wrapped({ output: "t", expected: { value: "t" }, context: "some context" }),
    ).toEqual({ name: "saw-context", score: 1 });
    expect(await wrapScorer(exactText)({ output: "a", expected: "a" })).toMatchObject({
      name: "exact-text",
      score: 1,
    });
  });

  it("runs in a suite under the inner scorer's name, resolving its config factory with the run's context", async () => {
    const signals: AbortSignal[] = [];
    const lengthAtMost = createScorer<string, number>((context) => {
      signals.push(context.signal);
      return {
        name: "length-at-most",
        score: ({ output, expected }) => ({ score: output.length <= expected ? 1 : 0 }),
      };
    });
    const suite = defineSuite<string, { text: string }>({
      id: "wrapped",
      cases: [],
      target: (input) => ({ text: input }),
      scorers: [
        wrapScorer(lengthAtMost, {
          output: (o: { text: string }) => o.text,
          expected: (e: { max: number }) => e.max,
        }),
      ],
      gates: ["length-at-most"],
    });
    const run = new AbortController();
    const record = await suite.runCase(
      { id: "short", index: 0, input: "abc", expected: { max: 5 } },
      { runId: "r", signal: run.signal },
    );
    expect(record.judgments[0]).toMatchObject({ label: "length-at-most", state: "matched" });
    expect(signals.at(-1)).toBe(run.signal);
    // The wrapper binds the inner scorer to the same context rather than to its own.
    await wrapScorer(lengthAtMost).withRuntime(runtimeContext(run.signal))({
      output: "x",
      expected: 1,
    });
    expect(signals.filter((s) => s === run.signal)).toHaveLength(1);
  });

  it("wraps a named scoring function from another library", async () => {
    function Levenshteinish(args: { output: string; expected: string }) {
      return { name: "ignored", score: args.output === args.expected ? 1 : 0.5 };
    }
    const wrapped = wrapScorer(Levenshteinish, { output: (o: { text: string }) => o.text });
    expect(wrapped.name).toBe("Levenshteinish");
    expect(await wrapped({ output: { text: "a" }, expected: "b" })).toEqual({
      name: "Levenshteinish",
      score: 0.5,
    });
  });

  it("rejects what it cannot wrap when it is built", () => {
    expect(() => wrapScorer(undefined as never)).toThrow(
      "wrapScorer: the first argument must be a scorer",
    );
    expect(() => wrapScorer((() => ({ score: 1 })) as never)).toThrow(
      "wrapScorer: the scorer has no name; build it with createScorer({ name, score })",
    );
    expect(() => wrapScorer(exactText, { output: "text" as never })).toThrow(
      'wrapScorer("exact-text"): `output` must be a function',
    );
    // A mapping given on its own would be ignored: no mapping would happen.
    expect(() => wrapScorer(exactText, ((output: string) => output) as never)).toThrow(
      'wrapScorer("exact-text"): options must be an object { output?, expected? } of mapping functions, got a function; to map the output, write wrapScorer(scorer, { output: fn })',
    );
    expect(() => wrapScorer(exactText, null as never)).toThrow("got null");
  });
});
