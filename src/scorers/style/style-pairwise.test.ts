import { describe, expect, it } from "vitest";
import type { JudgeFn } from "../../judge/types.js";
import { runTool } from "../../tool/index.js";
import { makeStylePairwiseDriver, stylePairwiseTool } from "./index.js";

const input = {
  reference: "Je marche. Je respire.",
  a: "Je cours. Je souffle.",
  b: "La course fut longue et le souffle court.",
  criteria: "phrases courtes, première personne",
};

const judging = (answer: unknown) => {
  const calls: Parameters<JudgeFn>[0][] = [];
  const judge: JudgeFn = async (args) => {
    calls.push(args);
    return answer as never;
  };
  return { judge, calls };
};

describe("eval.style-pairwise", () => {
  it("encodes a win for a as 1, passing, and shows the judge both texts and the reference", async () => {
    const { judge, calls } = judging({ value: 1, rationale: "même rythme" });
    const score = await runTool({
      tool: stylePairwiseTool,
      candidates: [makeStylePairwiseDriver(judge)],
      input,
    });
    expect(score).toEqual({
      value: 1,
      passed: true,
      label: "style-pairwise",
      rationale: "a wins (1): même rythme",
    });
    expect(calls[0]?.output).toEqual({ a: input.a, b: input.b });
    expect(calls[0]?.expected).toBe(input.reference);
    expect(calls[0]?.criteria).toContain(input.criteria);
  });

  it("encodes a win for b as 0 (failing) and a tie as 0.5 (passing)", async () => {
    const b = await runTool({
      tool: stylePairwiseTool,
      candidates: [makeStylePairwiseDriver(judging({ value: 0 }).judge)],
      input,
    });
    expect(b).toMatchObject({ value: 0, passed: false, rationale: "b wins (0)" });
    const tie = await runTool({
      tool: stylePairwiseTool,
      candidates: [makeStylePairwiseDriver(judging({ value: 0.5, passed: false }).judge)],
      input,
    });
    expect(tie).toMatchObject({ value: 0.5, passed: true, rationale: "tie (0.5)" });
  });

  it("fails the score on a malformed verdict instead of propagating NaN, errored so it is never a's or b's failure", async () => {
    for (const raw of [{ value: Number.NaN }, { value: 2 }, null, "n'importe quoi"]) {
      const score = await runTool({
        tool: stylePairwiseTool,
        candidates: [makeStylePairwiseDriver(judging(raw).judge)],
        input,
      });
      expect(score).toMatchObject({
        value: 0,
        passed: false,
        errored: true,
        label: "style-pairwise",
      });
      expect(score.rationale).toMatch(/^malformed judge verdict/);
    }
  });

  it("lets a judge that throws reject the call", async () => {
    const judge: JudgeFn = async () => {
      throw new Error("judge offline");
    };
    await expect(
      runTool({ tool: stylePairwiseTool, candidates: [makeStylePairwiseDriver(judge)], input }),
    ).rejects.toThrow("judge offline");
  });

  it("refuses a missing judge at build time", () => {
    expect(() => makeStylePairwiseDriver(undefined as unknown as JudgeFn)).toThrow(
      /judge must be a JudgeFn/,
    );
  });
});
