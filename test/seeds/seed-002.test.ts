// Seed 002's examples, run from code with only their import paths changed to niceeval.

import {
  arrayTelemetry,
  bindScorer,
  type EvalEvent,
  evalScorersProvider,
  exactMatchTool,
  type JudgeFn,
  latencyBudgetTool,
  llmJudge,
  llmJudgeTool,
  makeLlmJudgeDriver,
  runEval,
  runTool,
  styleScorersProvider,
  type TypedEvalSuite,
  textStatsTool,
} from "niceeval";
import { describe, expect, it } from "vitest";

interface Answer {
  text: string;
  latencyMs: number;
}

describe("seed 002 examples", () => {
  it("runs a scorer through runTool", async () => {
    const score = await runTool({
      tool: exactMatchTool,
      candidates: [evalScorersProvider],
      input: { actual: "hello", expected: "hello" },
    });
    expect(score).toEqual({
      value: 1,
      passed: true,
      label: "exact-match",
      rationale: "actual equals expected",
    });
  });

  it("runs a suite with runEval and telemetry", async () => {
    const suite: TypedEvalSuite<{ prompt: string }, Answer> = {
      id: "greeting-suite",
      cases: [
        { id: "hello", input: { prompt: "hi" }, expected: "hello" },
        { id: "world", input: { prompt: "wo" }, expected: "world" },
      ],
      scorers: [
        bindScorer<Answer, { actual: string; expected: string }>({
          id: "exact",
          tool: exactMatchTool,
          driver: evalScorersProvider,
          mapInput: ({ output, expected }) => ({
            actual: output.text,
            expected: typeof expected === "string" ? expected : "",
          }),
        }),
        bindScorer<Answer, { durationMs: number; budgetMs: number }>({
          id: "latency",
          tool: latencyBudgetTool,
          driver: evalScorersProvider,
          mapInput: ({ output }) => ({ durationMs: output.latencyMs, budgetMs: 100 }),
        }),
      ],
    };

    const telemetry = arrayTelemetry<EvalEvent>();
    const report = await runEval(suite, {
      target: async ({ prompt }) => ({ text: prompt === "hi" ? "hello" : "world", latencyMs: 10 }),
      telemetry,
    });
    expect(report.passedCount).toBe(2);
    expect(report.meanValue).toBe(1);
    const kinds = telemetry.events.map((e) => e.kind);
    expect(kinds[0]).toBe("eval.started");
    expect(kinds.at(-1)).toBe("eval.finished");
    expect(kinds.filter((k) => k === "eval.case.scored")).toHaveLength(4);
  });

  it("runs the LLM-as-judge scorer directly and as a suite scorer", async () => {
    const judge: JudgeFn = async ({ output, criteria }) => {
      expect(criteria).toBeTypeOf("string");
      return { value: output === "" ? 0.1 : 0.9, rationale: "meets the criteria" };
    };

    const score = await runTool({
      tool: llmJudgeTool,
      candidates: [makeLlmJudgeDriver(judge, { threshold: 0.7 })],
      input: { output: "the produced answer", criteria: "Is the answer helpful?" },
    });
    expect(score).toMatchObject({ value: 0.9, passed: true });

    const binding = bindScorer(
      llmJudge<Answer>({
        id: "helpfulness",
        judge,
        criteria: "Is the answer helpful and correct?",
        threshold: 0.7,
        mapOutput: ({ output }) => output.text,
      }),
    );
    const report = await runEval(
      { id: "judged", cases: [{ id: "a", input: "x", expected: undefined }], scorers: [binding] },
      { target: async () => ({ text: "a helpful answer", latencyMs: 1 }) },
    );
    expect(report.cases[0]?.scores[0]?.score).toMatchObject({ value: 0.9, passed: true });
  });

  it("runs the French text statistics scorer", async () => {
    const score = await runTool({
      tool: textStatsTool,
      candidates: [styleScorersProvider],
      input: {
        text: "Je pense que ceci illustre bien mon propos.",
        thresholds: { minFirstPersonRatio: 0.5 },
      },
    });
    expect(score.passed).toBe(true);
    expect(score.label).toBe("text-stats");
  });
});
