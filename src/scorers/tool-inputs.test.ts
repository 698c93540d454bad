import { describe, expect, it } from "vitest";
import type { JudgeFn } from "../judge/types.js";
import { callTool, runTool, toolInputError } from "../tool/run-tool.js";
import type { Driver, Tool } from "../tool/tool.js";
import * as scorers from "./index.js";

// Every built-in tool with an input that gives each of its keys, and a driver that runs it.
const judge: JudgeFn = async () => ({ value: 0.8, rationale: "close" });
const embed = async (texts: string[]) => texts.map((_, i) => [1, i]);
const cases: Record<string, { input: Record<string, unknown>; driver: Driver }> = {
  "eval.exact-match": {
    input: { actual: " a", expected: "a", trim: true },
    driver: scorers.evalScorersProvider,
  },
  "eval.regex-match": {
    input: { actual: "ABC", pattern: "b", flags: "i" },
    driver: scorers.evalScorersProvider,
  },
  "eval.json-schema-valid": {
    input: { actual: 1, schema: true, draft: "draft-07", formats: "annotate", parseJson: false },
    driver: scorers.evalScorersProvider,
  },
  "eval.latency-budget": {
    input: { durationMs: 5, budgetMs: 10 },
    driver: scorers.evalScorersProvider,
  },
  "eval.text-stats": {
    input: {
      text: "Je pense que ceci illustre bien mon propos.",
      thresholds: {
        maxBulletsRatio: 0.1,
        minFirstPersonRatio: 0.5,
        lengthBand: { min: 2, max: 20 },
      },
    },
    driver: scorers.styleScorersProvider,
  },
  "eval.lexicon-hit-rate": {
    input: { text: "Il faut écrire.", lexicon: ["écrire", "lire"], threshold: 0.4 },
    driver: scorers.styleScorersProvider,
  },
  "eval.llm-judge": {
    input: { output: "hi", criteria: "is it polite?", expected: "hello" },
    driver: scorers.makeLlmJudgeDriver(judge),
  },
  "eval.style-pairwise": {
    input: { reference: "r", a: "a", b: "b", criteria: "rythme" },
    driver: scorers.makeStylePairwiseDriver(judge),
  },
  "eval.style-embedding": {
    input: { candidate: "c", references: ["r"] },
    driver: scorers.makeStyleEmbeddingDriver(embed),
  },
  "eval.outline-fidelity": {
    input: { outline: "1. a", answer: "a" },
    driver: scorers.makeOutlineFidelityDriver(judge),
  },
};

const tools = (Object.values(scorers) as unknown[]).filter(
  (value): value is Tool<unknown, unknown> => (value as { kind?: unknown } | null)?.kind === "tool",
);

/** The paths of every key of `input`, nested objects (not arrays) included. */
function keyPaths(input: Record<string, unknown>, prefix: string[] = []): string[][] {
  return Object.entries(input).flatMap(([key, value]) => {
    const path = [...prefix, key];
    const plain = typeof value === "object" && value !== null && !Array.isArray(value);
    return plain ? [path, ...keyPaths(value as Record<string, unknown>, path)] : [path];
  });
}

/** `input` with the key at `path` set to `value`, or removed when `value` is `omit`. */
const omit = Symbol("omit");
function withKey(input: Record<string, unknown>, path: string[], value: unknown) {
  const copy = structuredClone(input);
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
  const last = path.at(-1) as string;
  if (value === omit) delete node[last];
  else node[last] = value;
  return copy;
}

/** `input` with the key at `path` renamed to `name`. */
function renamed(input: Record<string, unknown>, path: string[], name: string) {
  const value = path.reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], input);
  return withKey(withKey(input, path, omit), [...path.slice(0, -1), name], value);
}

/** The keys the tool may go without: those whose removal its input schema still accepts. */
function optionalPaths(tool: Tool<unknown, unknown>, input: Record<string, unknown>) {
  return keyPaths(input).filter((path) => !toolInputError(tool, withKey(input, path, omit)));
}

describe("built-in tool inputs", () => {
  it("has a case for every tool, giving every key of its input", () => {
    expect(tools.map((tool) => tool.id).sort()).toEqual(Object.keys(cases).sort());
    for (const tool of tools) {
      const shape = (tool.inputSchema as unknown as { shape: object }).shape;
      expect(Object.keys(cases[tool.id]?.input ?? {}), tool.id).toEqual(
        expect.arrayContaining(Object.keys(shape)),
      );
      expect(toolInputError(tool, cases[tool.id]?.input), tool.id).toBeUndefined();
    }
  });

  it.each(
    tools.flatMap((tool) =>
      optionalPaths(tool, cases[tool.id]?.input ?? {}).map((path) => [tool.id, path.join(".")]),
    ),
  )("%s takes %s: undefined as omitted", async (id, dotted) => {
    const tool = tools.find((candidate) => candidate.id === id) as Tool<unknown, unknown>;
    const { input, driver } = cases[id] as (typeof cases)[string];
    const path = dotted.split(".");
    const omitted = withKey(input, path, omit);
    const undefinedGiven = withKey(input, path, undefined);
    expect(toolInputError(tool, undefinedGiven)).toBeUndefined();
    const expected = await runTool({ tool, candidates: [driver], input: omitted });
    expect(await runTool({ tool, candidates: [driver], input: undefinedGiven })).toEqual(expected);
    // The engine's path, which hands a built-in scorer an input its own check accepts as it is.
    expect(await callTool(tool, [driver], undefinedGiven, undefined)).toEqual(expected);
  });

  it.each(
    tools.flatMap((tool) =>
      optionalPaths(tool, cases[tool.id]?.input ?? {}).map((path) => [tool.id, path.join(".")]),
    ),
  )("%s refuses %s misspelt, saying which key was meant", async (id, dotted) => {
    const tool = tools.find((candidate) => candidate.id === id) as Tool<unknown, unknown>;
    const { input, driver } = cases[id] as (typeof cases)[string];
    const path = dotted.split(".");
    const key = path.at(-1) as string;
    // Left out, the key is its default: misspelt, it must not quietly become that default.
    const misspelt = renamed(input, path, `${key}${key.at(-1)}`);
    const meant = `did you mean "${key}"?`;
    await expect(runTool({ tool, candidates: [driver], input: misspelt })).rejects.toThrow(meant);
    await expect((async () => callTool(tool, [driver], misspelt, undefined))()).rejects.toThrow(
      meant,
    );
  });

  it.each(
    tools.flatMap((tool) => {
      const input = cases[tool.id]?.input ?? {};
      const optional = optionalPaths(tool, input).map((path) => path.join("."));
      return keyPaths(input)
        .map((path) => path.join("."))
        .filter((dotted) => !optional.includes(dotted))
        .map((dotted) => [tool.id, dotted]);
    }),
  )("%s names %s misspelt as the key meant, not as a key left undefined", async (id, dotted) => {
    const tool = tools.find((candidate) => candidate.id === id) as Tool<unknown, unknown>;
    const { input, driver } = cases[id] as (typeof cases)[string];
    const path = dotted.split(".");
    const key = path.at(-1) as string;
    // A required key written otherwise (`durationMS`, `acutal`): the key meant is undefined.
    const misspelt = renamed(input, path, `${key.slice(0, -1)}${key.at(-1)?.toUpperCase()}`);
    const error = toolInputError(tool, misspelt);
    expect(error?.issues[0]?.message).toContain(`did you mean "${key}"?`);
    expect(error?.message).not.toContain("received undefined");
    await expect(runTool({ tool, candidates: [driver], input: misspelt })).rejects.toThrow(
      `did you mean "${key}"?`,
    );
  });

  it("names a misspelt required key in the errored Score of a scorer called directly", () => {
    const input = { actual: "a", patern: "a" } as never;
    expect(scorers.regexMatch(input).rationale).toBe(
      'invalid input: (root): unknown key "patern" (did you mean "pattern"?); known keys: actual, pattern, flags',
    );
    expect(scorers.latencyBudget({ duration_ms: 5, budgetMs: 10 } as never)).toMatchObject({
      errored: true,
      rationale:
        'invalid input: unknown key "duration_ms" (did you mean "durationMs"?); known keys: durationMs, budgetMs',
    });
    expect(() => scorers.exactMatch({ acutal: "a", expected: "a" } as never)).toThrow(
      'unknown key "acutal" (did you mean "actual"?)',
    );
  });

  it("lets a wider input through: a key that misspells none is no mistake", async () => {
    const input = { actual: "a", expected: "a", caseId: "c-1" };
    const tool = scorers.exactMatchTool;
    const candidates = [scorers.evalScorersProvider];
    await expect(runTool({ tool, candidates, input })).resolves.toMatchObject({ passed: true });
    await expect(
      (async () => callTool(tool, candidates, input, undefined))(),
    ).resolves.toMatchObject({ passed: true });
    expect(scorers.exactMatch(input).passed).toBe(true);
    expect(scorers.regexMatch({ actual: "a", pattern: "a", caseId: "c-1" } as never).passed).toBe(
      true,
    );
  });

  it("takes undefined for the optional keys of the scorers called directly", async () => {
    expect(scorers.exactMatch({ actual: "a", expected: "a", trim: undefined }).passed).toBe(true);
    expect(scorers.regexMatch({ actual: "abc", pattern: "b", flags: undefined }).passed).toBe(true);
    const score = await scorers.jsonSchemaValid({
      actual: 1,
      schema: { type: "number" },
      draft: undefined,
      formats: undefined,
    });
    expect(score.passed).toBe(true);
  });
});
