import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";

// Outputs JSON writes as {} or null: a run's report must not show them as empty or missing.
const suite = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const outputs = {
  map: () => new Map([["a", 1], ["b", [2]]]),
  set: () => new Set(["x", 2]),
  nested: () => ({ seen: new Set([1]), at: new Date("not a date") }),
  typed: () => new Float64Array([1.5, 2]),
  bigint: () => ({ n: 1n }),
  circular: () => {
    const node: Record<string, unknown> = { a: 1 };
    node.self = node;
    return node;
  },
  fn: () => ({ f: function named() {} }),
};

export const shapes = defineSuite({
  id: "shapes",
  cases: Object.keys(outputs).map((id) => ({ id, input: id })),
  target: async (id: string) => outputs[id as keyof typeof outputs](),
  scorers: [createScorer({ name: "never", score: () => ({ score: 0 }) })],
});
`;

const outputLines = (stdout: string) =>
  [...stdout.matchAll(/✗ (\w+) failed[^\n]*\n(?: {6}[✓✗!?].*\n)+ {6}output: {3}(.*)\n/g)].map(
    (match) => `${match[1]}: ${match[2]}`,
  );

describe("a failed case's output in the report", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/shapes.eval.ts": suite });
  });
  afterAll(() => project.cleanup());

  it("shows a Map's entries, a Set's items, a typed array's numbers, an invalid Date and the store's markers, live and in show", async () => {
    const run = await runCli(["run"], project.dir);
    expect(run.code).toBe(1);
    const inProcess = await runCli(["run", "--no-supervise", "--no-store"], project.dir);
    const expected = [
      'map: {"a":1,"b":[2]}',
      'set: ["x",2]',
      'nested: {"seen":[1],"at":"[unserialisable: invalid Date]"}',
      "typed: [1.5,2]",
      // What the store writes in place of a BigInt, a cycle and a function, not 1n, the cycle
      // unrolled or the field left out.
      'bigint: {"n":"[unserialisable: bigint 1]"}',
      'circular: {"a":1,"self":"[unserialisable: circular reference]"}',
      'fn: {"f":"[unserialisable: function named]"}',
    ];
    expect(outputLines(run.stdout)).toEqual(expected);
    expect(outputLines(inProcess.stdout)).toEqual(expected);
    const shown = await runCli(["show", "latest"], project.dir);
    expect(shown.code).toBe(1);
    expect(outputLines(shown.stdout)).toEqual(expected);
  });
});

// A case's output and expected value holding characters that act on a display.
const acting = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

export const acting = defineSuite({
  id: "acting",
  cases: [{ id: "bidi", input: "x", expected: "exp\\u202Dnext\\u2029para" }],
  target: async () => "bidi\\u202Eevil\\u0085nel\\u2028line",
  scorers: [createScorer({ name: "never", score: () => ({ score: 0 }) })],
});
`;

describe("a failed case's values holding bidirectional, C1 and separator characters", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/acting.eval.ts": acting });
  });
  afterAll(() => project.cleanup());

  it("shows them as symbols, live and in show", async () => {
    const run = await runCli(["run"], project.dir);
    expect(run.code).toBe(1);
    const shown = await runCli(["show", "latest"], project.dir);
    expect(shown.code).toBe(1);
    for (const { stdout } of [run, shown]) {
      expect(stdout).toContain('output:   "bidi⟨U+202E⟩evil\ufffdnel⟨U+2028⟩line"');
      expect(stdout).toContain('expected: "exp⟨U+202D⟩next⟨U+2029⟩para"');
      expect(stdout).not.toMatch(/[\u0085\u2028\u2029\u202d\u202e]/);
    }
  });
});
