import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ToolInputError, ToolNotImplementedError } from "../../errors.js";
import { runTool } from "../../tool/run-tool.js";
import {
  lexiconHitRateTool,
  styleEmbeddingTool,
  styleScorersProvider,
  textStatsTool,
} from "../style/index.js";
import { exactMatchTool } from "./exact-match.js";
import { jsonSchemaValidTool } from "./json-schema-valid.js";
import { latencyBudgetTool } from "./latency-budget.js";
import { evalScorersProvider } from "./provider.js";
import { regexMatchTool } from "./regex-match.js";

const candidates = [evalScorersProvider];

/** Run a tool expecting its input to be rejected; return the error. */
async function rejected(run: Promise<unknown>): Promise<ToolInputError> {
  const error = await run.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ToolInputError);
  return error as ToolInputError;
}

describe("evalScorersProvider", () => {
  it("bundles every deterministic tool under one driver, the French style ones included", () => {
    expect(evalScorersProvider.kind).toBe("driver");
    expect(evalScorersProvider.id).toBe("niceeval.eval-scorers");
    expect([...evalScorersProvider.implementations.keys()]).toEqual([
      "eval.exact-match",
      "eval.regex-match",
      "eval.json-schema-valid",
      "eval.latency-budget",
      "eval.text-stats",
      "eval.lexicon-hit-rate",
    ]);
    // The same implementations as seed 002's styleScorersProvider, not a second copy.
    for (const [id, implementation] of styleScorersProvider.implementations)
      expect(evalScorersProvider.implementations.get(id)).toBe(implementation);
  });

  it("runs the French text statistics", async () => {
    await expect(
      runTool({ tool: textStatsTool, candidates, input: { text: "Je pense que ceci va bien." } }),
    ).resolves.toMatchObject({ label: "text-stats", passed: true });
    await expect(
      runTool({
        tool: lexiconHitRateTool,
        candidates,
        input: { text: "Un écrit.", lexicon: ["écrit"] },
      }),
    ).resolves.toMatchObject({ label: "lexicon-hit-rate", value: 1 });
  });

  it("names the driver niceeval ships for a tool no candidate implements, as `candidates`", async () => {
    const error = await runTool({
      tool: exactMatchTool,
      candidates: [styleScorersProvider],
      input: { actual: "a", expected: "a" },
    }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ToolNotImplementedError);
    expect((error as ToolNotImplementedError).message).toBe(
      'no candidate implements tool "eval.exact-match" (candidates: niceeval.style-scorers); pass candidates: [evalScorersProvider] (import { evalScorersProvider } from "niceeval/scorers")',
    );
    await expect(
      runTool({
        tool: styleEmbeddingTool,
        candidates,
        input: { candidate: "a", references: ["b"] },
      }),
    ).rejects.toThrow(
      'no candidate implements tool "eval.style-embedding" (candidates: niceeval.eval-scorers); pass candidates: [makeStyleEmbeddingDriver(embed)] (import { makeStyleEmbeddingDriver } from "niceeval/scorers")',
    );
  });

  it("runs the seed example", async () => {
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

  it("runs every scorer through runTool", async () => {
    await expect(
      runTool({
        tool: regexMatchTool,
        candidates,
        input: { actual: "A1", pattern: "a\\d", flags: "i" },
      }),
    ).resolves.toMatchObject({ value: 1, passed: true, label: "regex-match" });
    await expect(
      runTool({ tool: regexMatchTool, candidates, input: { actual: "x", pattern: "(" } }),
    ).resolves.toMatchObject({ value: 0, rationale: expect.stringMatching(/^invalid pattern:/) });
    await expect(
      runTool({
        tool: jsonSchemaValidTool,
        candidates,
        input: {
          actual: { a: [1, "2"] },
          schema: { properties: { a: { items: { type: "number" } } } },
        },
      }),
    ).resolves.toMatchObject({
      value: 0,
      label: "json-schema-valid",
      rationale: "/a/1: must be number, got string",
    });
    await expect(
      runTool({ tool: latencyBudgetTool, candidates, input: { durationMs: 150, budgetMs: 100 } }),
    ).resolves.toMatchObject({ value: 0.5, passed: false, label: "latency-budget" });
  });

  it("accepts a Standard Schema in-process through runTool", async () => {
    await expect(
      runTool({
        tool: jsonSchemaValidTool,
        candidates,
        input: { actual: { n: 1 }, schema: z.object({ n: z.string() }) as never },
      }),
    ).resolves.toMatchObject({ passed: false, rationale: expect.stringMatching(/^\/n: /) });
  });

  it("rejects bad input with a ToolInputError naming the field", async () => {
    const negative = await rejected(
      runTool({ tool: latencyBudgetTool, candidates, input: { durationMs: -5, budgetMs: 100 } }),
    );
    expect(negative.code).toBe("TOOL_INPUT_INVALID");
    expect(negative.toolId).toBe("eval.latency-budget");
    expect(negative.issues[0]?.path).toBe("durationMs");
    expect(negative.message).toMatch(/^invalid input for tool "eval.latency-budget": durationMs: /);

    const nan = await rejected(
      runTool({
        tool: latencyBudgetTool,
        candidates,
        input: { durationMs: 1, budgetMs: Number.NaN },
      }),
    );
    expect(nan.issues[0]?.path).toBe("budgetMs");

    const missing = await rejected(
      runTool({ tool: exactMatchTool, candidates, input: { actual: "x" } as never }),
    );
    expect(missing.message).toContain("expected: ");

    const wrongType = await rejected(
      runTool({ tool: regexMatchTool, candidates, input: { actual: "x", pattern: 3 } as never }),
    );
    expect(wrongType.issues[0]?.path).toBe("pattern");

    // An optional field given as undefined is left out, as the input types say (flags?: string | undefined).
    await expect(
      runTool({
        tool: regexMatchTool,
        candidates,
        input: { actual: "x", pattern: "x", flags: undefined },
      }),
    ).resolves.toMatchObject({ passed: true });

    // A value that is no schema is the scorer's to answer (errored), not a rejected call.
    await expect(
      runTool({
        tool: jsonSchemaValidTool,
        candidates,
        input: { actual: 1, schema: "number" } as never,
      }),
    ).resolves.toMatchObject({
      errored: true,
      rationale: "invalid schema: a JSON Schema is an object or a boolean, got string",
    });
  });
});
