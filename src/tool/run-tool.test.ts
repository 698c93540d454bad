import { type } from "arktype";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AuthoringError, ToolInputError, ToolOutputError } from "../errors.js";
import { scoreSchema } from "../score/score.js";
import {
  evalScorersProvider,
  exactMatchImpl,
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

describe("tools whose schemas are any Standard Schema", () => {
  // arktype's schemas are callable functions that carry "~standard".
  const length = defineTool({
    id: "demo.length",
    description: "length of a word",
    inputSchema: type({ word: "string" }),
    outputSchema: v.pipe(v.number(), v.maxValue(5)),
  });
  const driver = defineDriver({
    id: "words",
    implementations: [implementTool(length, (input) => input.word.length)],
  });

  it("parses input and output with them, through runTool and the engine's callTool", async () => {
    await expect(
      runTool({ tool: length, candidates: [driver], input: { word: "abc" } }),
    ).resolves.toBe(3);
    expect(callTool(length, [driver], { word: "abc" }, undefined)).toBe(3);
  });

  it("names the field of a bad input and the rule of a bad output", async () => {
    const bad = runTool({ tool: length, candidates: [driver], input: { word: 3 } as never });
    await expect(bad).rejects.toBeInstanceOf(ToolInputError);
    await expect(bad).rejects.toThrow(
      /^invalid input for tool "demo\.length": word: word must be a string/,
    );
    const long = runTool({ tool: length, candidates: [driver], input: { word: "abcdefg" } });
    await expect(long).rejects.toBeInstanceOf(ToolOutputError);
    await expect(long).rejects.toThrow(/returned an invalid result: \(root\): .*5/);
  });

  it("waits for a schema whose validate answers asynchronously", async () => {
    const echo = defineTool({
      id: "demo.echo-async",
      description: "echo",
      inputSchema: v.pipeAsync(
        v.string(),
        v.checkAsync(async (text) => text !== "no", "not no"),
      ),
      outputSchema: z.string(),
    });
    const echoes = defineDriver({ id: "echo", implementations: [implementTool(echo, (t) => t)] });
    await expect(callTool(echo, [echoes], "yes", undefined)).resolves.toBe("yes");
    await expect(callTool(echo, [echoes], "no", undefined)).rejects.toThrow(
      /invalid input for tool "demo\.echo-async": \(root\): not no/,
    );
  });

  it("refuses at definition what is no schema, naming the tool and the field", () => {
    const define = () =>
      defineTool({
        id: "demo.bad",
        description: "bad",
        inputSchema: z.string(),
        outputSchema: { type: "string" } as never,
      });
    expect(define).toThrow(AuthoringError);
    expect(define).toThrow(
      'tool "demo.bad": outputSchema is not a schema (got an object without "~standard"); pass a zod schema or a Standard Schema (valibot, arktype…), one that has a "~standard" property',
    );
  });
});

describe("runTool's own arguments", () => {
  it("names the argument and what it got, not a TypeError from inside", async () => {
    const input = { actual: "a", expected: "a" };
    await expect(runTool({ tool: exactMatchTool, input } as never)).rejects.toThrow(
      'runTool("eval.exact-match"): `candidates` must be an array of drivers, got undefined; pass candidates: [driver], such as [evalScorersProvider]',
    );
    await expect(
      runTool({ tool: exactMatchTool, candidates: [exactMatchImpl], input } as never),
    ).rejects.toThrow(
      'runTool("eval.exact-match"): candidates[0] is a tool implementation, not a driver: bundle it with defineDriver({ id, implementations: [it] })',
    );
    await expect(
      runTool({ tool: exactMatchTool, candidates: [exactMatchTool], input } as never),
    ).rejects.toThrow("candidates[0] is a tool, not a driver");
    await expect(runTool({ candidates, input } as never)).rejects.toThrow(
      "runTool: `tool` must be a tool (defineTool's result, such as exactMatchTool), got undefined",
    );
    await expect(runTool(undefined as never)).rejects.toThrow(
      "runTool: pass { tool, candidates, input }, got undefined",
    );
    await expect(runTool({ tool: exactMatchTool, input } as never)).rejects.toBeInstanceOf(
      AuthoringError,
    );
  });
});
