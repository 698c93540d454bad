import { describe, expect, it } from "vitest";
import { ToolInputError } from "../../errors.js";
import type { JudgeFn } from "../../judge/types.js";
import { runTool } from "../../tool/index.js";
import {
  makeOutlineFidelityDriver,
  makeStylePairwiseDriver,
  outlineFidelityTool,
} from "./index.js";

const input = {
  outline: "1. Contexte\n2. Méthode\n3. Résultats",
  answer: "Contexte, méthode, résultats.",
};
const judgeSaying =
  (answer: unknown): JudgeFn =>
  async () =>
    answer as never;
const score = (answer: unknown) =>
  runTool({
    tool: outlineFidelityTool,
    candidates: [makeOutlineFidelityDriver(judgeSaying(answer))],
    input,
  });

describe("eval.outline-fidelity", () => {
  it("passes at 0.95 and above", async () => {
    expect(await score({ value: 0.95 })).toMatchObject({
      value: 0.95,
      passed: true,
      label: "outline-fidelity",
    });
    expect(await score({ value: 1 })).toMatchObject({ value: 1, passed: true });
  });

  it("fails below 0.95 even when the judge says passed", async () => {
    const result = await score({ value: 0.94, passed: true, rationale: "presque" });
    expect(result).toMatchObject({ value: 0.94, passed: false });
    expect(result.rationale).toContain("the judge's own passed=true is ignored");
    expect(result.rationale).toContain("presque");
  });

  it("passes at 0.95 even when the judge says failed", async () => {
    expect(await score({ value: 0.97, passed: false })).toMatchObject({
      value: 0.97,
      passed: true,
    });
  });

  it("takes a value that passes 1 by floating-point rounding alone as 1", async () => {
    expect(await score({ value: (0.1 + 0.2) / 0.3 })).toMatchObject({ value: 1, passed: true });
  });

  it("fails the score on a malformed verdict, errored so it is never the answer's failure", async () => {
    for (const raw of [{ value: Number.NaN }, { passed: true }, undefined, { value: 7 }]) {
      expect(await score(raw)).toMatchObject({
        value: 0,
        passed: false,
        errored: true,
        label: "outline-fidelity",
      });
    }
  });

  it("shows the judge the answer as output and the outline as expected", async () => {
    let seen: Parameters<JudgeFn>[0] | undefined;
    const judge: JudgeFn = async (args) => {
      seen = args;
      return { value: 1 };
    };
    await runTool({
      tool: outlineFidelityTool,
      candidates: [makeOutlineFidelityDriver(judge)],
      input,
    });
    expect(seen).toMatchObject({ output: input.answer, expected: input.outline });
  });

  it("rejects an empty outline, naming the field", async () => {
    const error = await runTool({
      tool: outlineFidelityTool,
      candidates: [makeOutlineFidelityDriver(judgeSaying({ value: 1 }))],
      input: { outline: "", answer: "x" },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolInputError);
    expect((error as ToolInputError).issues[0]?.path).toBe("outline");
  });

  it("refuses options beside the judge: its gate is fixed (from JavaScript, a threshold was kept without a word)", () => {
    const call = makeOutlineFidelityDriver as (...args: unknown[]) => unknown;
    expect(() => call(judgeSaying({ value: 0.9 }), { threshold: 0.8 })).toThrow(
      "makeOutlineFidelityDriver takes only the judge, got 1 more argument: its gate is fixed (a case passes at a coverage of 0.95 or more), with no option to set",
    );
    const pairwise = makeStylePairwiseDriver as (...args: unknown[]) => unknown;
    expect(() => pairwise(judgeSaying({ value: 1 }), { threshold: 0.7 })).toThrow(
      "makeStylePairwiseDriver takes only the judge, got 1 more argument",
    );
  });
});
