import { describe, expect, it } from "vitest";
import { createScorer, isScorer, wrapScorer } from "./create-scorer.js";

describe("createScorer", () => {
  it("names every score with the configured name, whatever the callback returns", async () => {
    const scorer = createScorer<{ answer: string }, string>({
      name: "correct-answer",
      score: ({ output, expected }) => ({
        score: output.answer === expected ? 1 : 0,
        name: "ignored",
        metadata: { compared: true },
      }),
    });
    expect(scorer.scorerName).toBe("correct-answer");
    expect(isScorer(scorer)).toBe(true);
    expect(await scorer({ output: { answer: "Paris" }, expected: "Paris" })).toEqual({
      name: "correct-answer",
      score: 1,
      metadata: { compared: true },
    });
  });

  it("resolves a config factory once, with the runtime context", async () => {
    let calls = 0;
    const scorer = createScorer<string, string>((context) => {
      calls++;
      expect(context.dependencies).toEqual({});
      return {
        name: "factory",
        score: async ({ output }) => ({ score: output.length > 2 ? 1 : null }),
      };
    });
    expect(await scorer({ output: "abc", expected: "" })).toEqual({ name: "factory", score: 1 });
    expect(await scorer({ output: "a", expected: "" })).toEqual({ name: "factory", score: null });
    expect(calls).toBe(1);
  });
});

describe("wrapScorer", () => {
  it("adapts scorers that return a number, an object or null, reshaping their arguments", async () => {
    const length = wrapScorer<string, string, Record<string, unknown>, { text: string }>({
      name: "length",
      scorer: ({ text }) => Math.min(1, text.length / 10),
      mapArgs: ({ output }) => ({ text: output }),
    });
    expect(await length({ output: "hello", expected: "" })).toEqual({ name: "length", score: 0.5 });

    const detailed = wrapScorer<string, string>({
      name: "detailed",
      scorer: async ({ output, expected }) => ({
        score: output === expected ? 1 : 0,
        metadata: { why: "compare" },
      }),
    });
    expect(await detailed({ output: "a", expected: "b" })).toEqual({
      name: "detailed",
      score: 0,
      metadata: { why: "compare" },
    });

    const abstain = wrapScorer<string, string>({ name: "abstain", scorer: () => null });
    expect(await abstain({ output: "a", expected: "a" })).toEqual({ name: "abstain", score: null });
  });

  it("is not confused with plain functions", () => {
    expect(isScorer(() => 1)).toBe(false);
    expect(isScorer({ kind: "scorer" })).toBe(false);
  });
});
