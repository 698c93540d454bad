import { describe, expect, it } from "vitest";
import { z } from "zod";
import { scoreSchema } from "../score/score.js";
import {
  evalScorersProvider,
  exactMatchTool,
  jsonSchemaValidTool,
  latencyBudgetTool,
  regexMatchTool,
} from "../scorers/index.js";
import { callTool, runTool } from "./run-tool.js";
import { defineDriver, defineTool, implementTool, type Tool } from "./tool.js";

const candidates = [evalScorersProvider];
const both = async (tool: Tool<unknown, unknown>, input: unknown) => {
  const viaRun = await runTool({ tool, candidates, input }).catch((error: Error) => error);
  let viaCall: unknown;
  try {
    viaCall = await callTool(tool, candidates, input, undefined);
  } catch (error) {
    viaCall = error;
  }
  return { viaRun, viaCall };
};

describe("callTool (the engine's path) answers as runTool does", () => {
  const inputs: [object, unknown][] = [
    [exactMatchTool, { actual: "a", expected: "a" }],
    [exactMatchTool, { actual: " a", expected: "a", trim: true }],
    [exactMatchTool, { actual: "a", expected: "a", trim: undefined }],
    [exactMatchTool, { actual: 1, expected: "a" }],
    [exactMatchTool, ["a", "a"]],
    [regexMatchTool, { actual: "abc", pattern: "^a" }],
    [regexMatchTool, { actual: "abc", pattern: "(?=a)" }],
    [regexMatchTool, { actual: "abc", pattern: "a", flags: 3 }],
    [latencyBudgetTool, { durationMs: 150, budgetMs: 100 }],
    [latencyBudgetTool, { durationMs: -1, budgetMs: 100 }],
    [latencyBudgetTool, { durationMs: Number.POSITIVE_INFINITY, budgetMs: 100 }],
    [jsonSchemaValidTool, { actual: 1, schema: { type: "integer" } }],
    [jsonSchemaValidTool, { actual: "1", schema: { type: "integer" }, draft: "draft-07" }],
    [jsonSchemaValidTool, { schema: { type: "integer" } }],
    [jsonSchemaValidTool, { actual: 1, schema: { type: "integer" }, formats: "never" }],
  ];
  it.each(inputs)("%# same result or error", async (tool, input) => {
    // Twice: the second call finds the compiled schema or pattern.
    for (let i = 0; i < 2; i++) {
      const { viaRun, viaCall } = await both(tool as Tool<unknown, unknown>, input);
      if (viaRun instanceof Error) {
        expect(viaCall).toBeInstanceOf(viaRun.constructor);
        expect((viaCall as Error).message).toBe(viaRun.message);
      } else expect(viaCall).toEqual(viaRun);
    }
  });

  it("still checks the output of a built-in implementation under another contract", async () => {
    // Same id as the built-in, stricter output: the built-in's 0 is not this contract's result.
    const strict = defineTool({
      id: exactMatchTool.id,
      description: "only passes",
      inputSchema: exactMatchTool.inputSchema,
      outputSchema: scoreSchema.extend({ value: z.literal(1) }),
    });
    const input = { actual: "a", expected: "b" };
    expect(() => callTool(strict, candidates, input, undefined)).toThrow(/invalid result/);
    await expect(runTool({ tool: strict, candidates, input })).rejects.toThrow(/invalid result/);
  });

  it("checks what any other implementation returns, synchronously or not", async () => {
    const tool = defineTool({
      id: "demo.half",
      description: "half",
      inputSchema: z.number(),
      outputSchema: z.number().max(1),
    });
    const sync = defineDriver({ id: "sync", implementations: [implementTool(tool, (n) => n / 2)] });
    const later = defineDriver({
      id: "later",
      implementations: [implementTool(tool, async (n) => n / 2)],
    });
    expect(callTool(tool, [sync], 1, undefined)).toBe(0.5);
    expect(() => callTool(tool, [sync], 4, undefined)).toThrow(/invalid result/);
    await expect(callTool(tool, [later], 1, undefined)).resolves.toBe(0.5);
    await expect(callTool(tool, [later], 4, undefined)).rejects.toThrow(/invalid result/);
    expect(() => callTool(tool, [sync], "x" as never, undefined)).toThrow(/invalid input/);
  });
});
