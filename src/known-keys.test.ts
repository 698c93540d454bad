import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAdapter } from "./adapter/define-adapter.js";
import { AuthoringError } from "./errors.js";
import { bindScorer, defineSuite } from "./eval/suite.js";
import { equals } from "./expect/compare.js";
import { defineContextMatch, defineMaterialMatch } from "./expect/context-match.js";
import { refuseUnknownKeys, unknownKeysMessage } from "./known-keys.js";
import { createScorer } from "./scorers/create-scorer.js";
import { evalScorersProvider, exactMatchTool } from "./scorers/deterministic/index.js";
import { wrapScorer } from "./scorers/wrap-scorer.js";
import { defineDriver, defineTool, implementTool } from "./tool/tool.js";

// Definitions built without type checking (an .eval.js file, or TypeScript that `niceeval run`
// compiles without checking): what a misspelt key would otherwise silently drop.
const loose = (value: object): never => value as never;

const ran = createScorer({ name: "ran", score: () => ({ score: 1 }) });
const suite = { id: "greetings", cases: [{ input: 1 }], target: (x: number) => x, scorers: [ran] };
const adapter = defineAdapter({ name: "desk", create: () => ({}) });
const echo = defineTool({
  id: "demo.echo",
  description: "echo",
  inputSchema: z.string(),
  outputSchema: z.string(),
});

describe("refuseUnknownKeys", () => {
  const known = { id: true, gates: true, timeoutMs: true } as const;

  it("names where, every unknown key, the key it likely meant and the known keys", () => {
    expect(() => refuseUnknownKeys('defineSuite("s")', { id: "s", gate: [] }, known)).toThrow(
      'defineSuite("s"): unknown key "gate" (did you mean "gates"?); known keys: id, gates, timeoutMs',
    );
    expect(() => refuseUnknownKeys("f", { TIMEOUTMS: 1, gate: [], colour: "red" }, known)).toThrow(
      'f: unknown keys "TIMEOUTMS" (did you mean "timeoutMs"?), "gate" (did you mean "gates"?) and "colour"; known keys: id, gates, timeoutMs',
    );
    expect(() => refuseUnknownKeys("f", { toString: 1 }, known)).toThrow(AuthoringError);
  });

  it("offers a key with a unit for a misspelling of its name without it", () => {
    expect(() => refuseUnknownKeys("f", { timout: 50 }, known, "options")).toThrow(
      'f: unknown key "options.timout" (did you mean "options.timeoutMs"?)',
    );
  });

  it("names the field a nested object is", () => {
    expect(() => refuseUnknownKeys("f", { gate: 1 }, known, "capture")).toThrow(
      'f: unknown key "capture.gate" (did you mean "capture.gates"?); known keys: capture.id, capture.gates, capture.timeoutMs',
    );
  });

  it("lets known keys and what is not an object through", () => {
    for (const given of [{ id: "s", gates: undefined }, {}, null, undefined, "text", 3]) {
      expect(() => refuseUnknownKeys("f", given, known)).not.toThrow();
    }
  });
});

describe("every definition refuses a key its type does not have", () => {
  const cases: [string, () => unknown, string][] = [
    [
      "defineSuite",
      () => defineSuite(loose({ ...suite, gate: ["ran"], treshold: 0.1, timeoutMS: 5 })),
      'defineSuite("greetings"): unknown keys "gate" (did you mean "gates"?), "treshold" (did you mean "threshold"?) and "timeoutMS" (did you mean "timeoutMs"?); known keys: id, cases, target, scorers, concurrency, threshold, gates, timeoutMs, trials',
    ],
    [
      "defineSuite without its id",
      () => defineSuite(loose({ ...suite, id: undefined, ids: "greetings" })),
      'defineSuite: unknown key "ids" (did you mean "id"?)',
    ],
    [
      "bindScorer",
      () =>
        bindScorer(
          loose({
            id: "exact",
            tool: exactMatchTool,
            driver: evalScorersProvider,
            mapInpt: () => ({}),
          }),
        ),
      'bindScorer("exact"): unknown key "mapInpt" (did you mean "mapInput"?); known keys: id, tool, driver, mapInput',
    ],
    [
      "createScorer",
      () => createScorer(loose({ name: "exact", scorer: () => ({ score: 1 }) })),
      'createScorer("exact"): unknown key "scorer" (did you mean "score"?); known keys: name, score',
    ],
    [
      "createScorer's config factory",
      () => createScorer(loose(() => ({ name: "exact", score: () => ({ score: 1 }), nam: "x" }))),
      'createScorer("exact"): unknown key "nam" (did you mean "name"?)',
    ],
    [
      "wrapScorer",
      () => wrapScorer(ran, loose({ outptu: (o: unknown) => o })),
      'wrapScorer("ran"): unknown key "outptu" (did you mean "output"?); known keys: output, expected',
    ],
    [
      "defineAdapter",
      () => defineAdapter(loose({ name: "desk", create: () => ({}), assertion: () => ({}) })),
      'defineAdapter("desk"): unknown key "assertion" (did you mean "assertions"?); known keys: name, create, assertions',
    ],
    [
      "defineScoreEval, its description misspelt",
      () => adapter.defineScoreEval(loose({ descripton: "Ticket handling", test() {} })),
      'adapter "desk".defineScoreEval: unknown key "descripton" (did you mean "description"?); known keys: description, test, id, timeoutMs, judge, trials',
    ],
    [
      "defineScoreEval, naming the eval its description gives",
      () => adapter.defineScoreEval(loose({ description: "Ticket handling", test() {}, trial: 2 })),
      'adapter "desk".defineScoreEval (eval "desk.ticket-handling"): unknown key "trial" (did you mean "trials"?)',
    ],
    [
      "defineEval, naming the eval by its id",
      () => adapter.defineEval(loose({ id: "pass-fail", description: "x", test() {}, judje: 1 })),
      'adapter "desk".defineEval (eval "pass-fail"): unknown key "judje" (did you mean "judge"?)',
    ],
    [
      "defineTool",
      () =>
        defineTool(
          loose({
            id: "demo.echo",
            description: "echo",
            inputSchema: z.string(),
            outputSchema: z.string(),
            outputSchemas: z.string(),
          }),
        ),
      'defineTool("demo.echo"): unknown key "outputSchemas" (did you mean "outputSchema"?)',
    ],
    [
      "defineDriver",
      () =>
        defineDriver(
          loose({ id: "demo", implementation: [implementTool(echo, (s: string) => s)] }),
        ),
      'defineDriver("demo"): unknown key "implementation" (did you mean "implementations"?); known keys: id, implementations',
    ],
    [
      "defineContextMatch",
      () =>
        defineContextMatch(
          loose({
            name: "status",
            reed: () => ({ state: "available", value: 1 }),
            match: equals(1),
          }),
        ),
      'defineContextMatch("status"): unknown key "reed" (did you mean "read"?); known keys: name, read, match, capture',
    ],
    [
      "defineMaterialMatch",
      () =>
        defineMaterialMatch(loose({ name: "notes", read: () => [], match: equals(1), cap: {} })),
      'defineMaterialMatch("notes"): unknown key "cap"',
    ],
    [
      "defineMaterialMatch's capture",
      () =>
        defineMaterialMatch(
          loose({ name: "notes", read: () => [], match: equals(1), capture: { maxItem: 5 } }),
        ),
      'defineMaterialMatch("notes"): unknown key "capture.maxItem" (did you mean "capture.maxItems"?); known keys: capture.maxItems, capture.maxBytes, capture.maxNodes, capture.maxDepth',
    ],
  ];

  it.each(cases)("%s", (_, define, message) => {
    expect(define).toThrow(AuthoringError);
    expect(define).toThrow(message);
  });

  it("takes every key the types allow", () => {
    expect(() =>
      defineSuite({
        ...suite,
        concurrency: 2,
        threshold: 0.7,
        gates: ["ran"],
        timeoutMs: 5,
        trials: 2,
      }),
    ).not.toThrow();
    expect(() =>
      adapter.defineScoreEval({
        id: "x",
        description: "x",
        test() {},
        timeoutMs: 5,
        judge: async () => ({ state: "satisfied", reason: "" }),
        trials: 2,
      }),
    ).not.toThrow();
    expect(() =>
      defineMaterialMatch({
        name: "notes",
        read: () => [],
        match: equals(1),
        capture: { maxItems: 1, maxBytes: 1, maxNodes: 1, maxDepth: 1 },
      }),
    ).not.toThrow();
  });
});

describe("unknownKeysMessage", () => {
  it("takes a key another tool names otherwise for the key it stands for, before any typo", () => {
    const keys = ["id", "input", "expected"];
    expect(unknownKeysMessage(["vars", "expect"], keys, undefined, { vars: "input" })).toBe(
      'unknown keys "vars" (did you mean "input"?) and "expect" (did you mean "expected"?); known keys: id, input, expected',
    );
    // Without the alias, `vars` is too far from any key to be offered one.
    expect(unknownKeysMessage(["vars"], keys)).toBe(
      'unknown key "vars"; known keys: id, input, expected',
    );
    // An alias is an own key only: `toString` is not one.
    expect(unknownKeysMessage(["toString"], keys, undefined, { vars: "input" })).toBe(
      'unknown key "toString"; known keys: id, input, expected',
    );
  });
});
