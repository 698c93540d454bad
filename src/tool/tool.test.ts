import { describe, expect, it } from "vitest";
import { z } from "zod";
import { scoreSchema } from "../score/score.js";
import { evalScorersProvider } from "../scorers/deterministic/provider.js";
import { styleScorersProvider } from "../scorers/style/provider.js";
import { defineDriver, defineTool, implementTool } from "./tool.js";

const echo = defineTool({
  id: "acme.echo",
  description: "echo",
  inputSchema: z.object({ s: z.string() }),
  outputSchema: scoreSchema,
});
const run = () => ({ value: 1, passed: true, label: "echo" });

describe("the definitions of tools and drivers", () => {
  it("refuses a tool without an id or a description when it is defined", () => {
    const { id: _, ...withoutId } = {
      id: "x",
      description: "no id",
      inputSchema: z.string(),
      outputSchema: scoreSchema,
    };
    expect(() => defineTool(withoutId as never)).toThrow(
      'defineTool: `id` must be a non-empty string, the tool\'s name ("acme.cite-check"); got undefined',
    );
    expect(() =>
      defineTool({
        id: "q",
        description: 5 as never,
        inputSchema: z.string(),
        outputSchema: scoreSchema,
      }),
    ).toThrow(
      'defineTool("q"): `description` must be a non-empty string, what the tool does (an AI SDK agent\'s model reads it); got a number',
    );
    expect(() => defineTool(undefined as never)).toThrow(
      "defineTool: pass { id, description, inputSchema, outputSchema }, got undefined",
    );
  });

  it("refuses an implementation of what is not a tool, or without a function", () => {
    expect(() => implementTool(echo, undefined as never)).toThrow(
      'implementTool("acme.echo"): `run` must be a function (input, context) => output; got undefined',
    );
    expect(() => implementTool({ id: "x" } as never, run)).toThrow(
      'implementTool: `tool` must be a tool made by defineTool, got an object that is not a tool (it has no kind "tool"); pass implementTool(tool, run)',
    );
  });

  it("refuses a driver without an id, or whose implementations are not implementations", () => {
    const implementation = implementTool(echo, run);
    expect(() => defineDriver({ implementations: [implementation] } as never)).toThrow(
      'defineDriver: `id` must be a non-empty string, the driver\'s name ("acme"); got undefined',
    );
    expect(() => defineDriver({ id: "acme", implementations: [echo as never] })).toThrow(
      'defineDriver("acme"): `implementations[0]` is a tool ("acme.echo"), not its implementation: pass implementTool(tool, run)',
    );
    expect(() => defineDriver({ id: "acme", implementations: implementation as never })).toThrow(
      'defineDriver("acme"): `implementations` must be an array of implementTool(tool, run) results, got an object',
    );
    expect(() =>
      defineDriver({ id: "acme", implementations: [implementation, undefined as never] }),
    ).toThrow('defineDriver("acme"): `implementations[1]` is undefined, not an implementation');
    expect(
      defineDriver({ id: "acme", implementations: [implementation] }).implementations.size,
    ).toBe(1);
  });

  it("refuses a driver with two implementations of one tool, which would keep only the last", () => {
    const a = implementTool(echo, run);
    const b = implementTool(echo, () => ({ value: 0, passed: false, label: "B" }));
    expect(() => defineDriver({ id: "d", implementations: [a, b] })).toThrow(
      'defineDriver("d"): two implementations of tool "acme.echo"; a driver runs one implementation per tool: keep one, or put the other in a driver of its own',
    );
  });

  it("takes one implementation listed twice, as when two providers that share one are merged", () => {
    const a = implementTool(echo, run);
    expect(defineDriver({ id: "d", implementations: [a, a] }).implementations.size).toBe(1);
    const merged = defineDriver({
      id: "mine",
      // A driver's map holds implementations of unknown input (never): typed for reading.
      implementations: [
        ...evalScorersProvider.implementations.values(),
        ...styleScorersProvider.implementations.values(),
      ] as unknown as Parameters<typeof defineDriver>[0]["implementations"],
    });
    expect(merged.implementations.has("eval.text-stats")).toBe(true);
  });
});
