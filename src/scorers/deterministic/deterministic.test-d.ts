import type { StandardSchemaV1 } from "@standard-schema/spec";
import { type } from "arktype";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { bindScorer } from "../../eval/suite.js";
import type { Score } from "../../score/score.js";
import type { Tool } from "../../tool/tool.js";
import {
  calls,
  evalScorersProvider,
  exactMatchTool,
  type JsonSchema,
  type JsonSchemaObject,
  type JsonSchemaScore,
  jsonSchemaValid,
  jsonSchemaValidTool,
  latencyBudgetTool,
  type Mark,
  type MinimalJsonSchema,
  regexMatchTool,
  standardSchemaValid,
} from "./index.js";

interface Answer {
  text: string;
  latencyMs: number;
}

describe("deterministic scorer types", () => {
  it("binds the seed's suite scorers", () => {
    bindScorer<Answer, { actual: string; expected: string }>({
      id: "exact",
      tool: exactMatchTool,
      driver: evalScorersProvider,
      mapInput: ({ output, expected }) => ({
        actual: output.text,
        expected: typeof expected === "string" ? expected : "",
      }),
    });
    bindScorer<Answer, { durationMs: number; budgetMs: number }>({
      id: "latency",
      tool: latencyBudgetTool,
      driver: evalScorersProvider,
      mapInput: ({ output }) => ({ durationMs: output.latencyMs, budgetMs: 100 }),
    });
  });

  it("binds with the input types callers naturally write", () => {
    bindScorer<Answer, { actual: string; pattern: string; flags?: string }>({
      id: "mentions",
      tool: regexMatchTool,
      driver: evalScorersProvider,
      mapInput: ({ output }) => ({ actual: output.text, pattern: "hello", flags: "i" }),
    });
    bindScorer<Answer, { actual: unknown; schema: Record<string, unknown> }>({
      id: "shape",
      tool: jsonSchemaValidTool,
      driver: evalScorersProvider,
      mapInput: ({ output }) => ({ actual: output, schema: { type: "object" } }),
    });
    bindScorer<Answer, { actual: unknown; schema: JsonSchemaObject | StandardSchemaV1 }>({
      id: "shape-arktype",
      tool: jsonSchemaValidTool,
      driver: evalScorersProvider,
      mapInput: ({ output }) => ({ actual: output, schema: type({ text: "string" }) }),
    });
    bindScorer<Answer, { actual: string; expected: string; trim?: boolean }>({
      id: "trimmed",
      tool: exactMatchTool,
      driver: evalScorersProvider,
      mapInput: ({ output }) => ({ actual: output.text, expected: "hi", trim: true }),
    });
  });

  it("types the tools as scorers of Score", () => {
    expectTypeOf(exactMatchTool).toExtend<Tool<{ actual: string; expected: string }, Score>>();
  });

  it("returns a Score for JSON Schema and maybe a Promise for a Standard Schema", () => {
    expectTypeOf(jsonSchemaValid({ actual: 1, schema: { type: "number" } })).toEqualTypeOf<
      Promise<JsonSchemaScore>
    >();
    expectTypeOf(jsonSchemaValid({ actual: 1, schema: true })).toEqualTypeOf<
      Promise<JsonSchemaScore>
    >();
    expectTypeOf(jsonSchemaValid({ actual: 1, schema: z.number() })).toEqualTypeOf<
      Promise<JsonSchemaScore>
    >();
    expectTypeOf(jsonSchemaValid({ actual: 1, schema: type("number") })).toEqualTypeOf<
      Promise<JsonSchemaScore>
    >();
    expectTypeOf(standardSchemaValid({ actual: 1, schema: z.number() })).toEqualTypeOf<
      Promise<JsonSchemaScore>
    >();
    expectTypeOf<JsonSchemaScore>().toExtend<Score>();
    // @ts-expect-error the draft is one of the three
    jsonSchemaValid({ actual: 1, schema: true, draft: "draft-04" });
    expectTypeOf<MinimalJsonSchema>().toEqualTypeOf<JsonSchema>();
  });

  it("accepts zod's own JSON Schema output", () => {
    expectTypeOf(z.toJSONSchema(z.object({ n: z.number() }))).toExtend<JsonSchema>();
    expectTypeOf(z.number()).toExtend<StandardSchemaV1>();
  });

  it("scores calls as a Mark", () => {
    expectTypeOf(calls({ calls: [{ toolName: "x" }] }, { mustCall: ["x"] })).toEqualTypeOf<Mark>();
    // @ts-expect-error a run needs its calls
    calls({ text: "hi" }, {});
  });
});
