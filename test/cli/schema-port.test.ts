import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";

// A promptfoo suite ported as a new user ports it: a draft-07 schema file as zod-to-json-schema
// writes it, is-json on a model's text, and equals on numbers from a JSON dataset.
const header = `import { bindScorer, defineSuite } from "niceeval";
import { evalScorersProvider, exactMatchTool, jsonSchemaValidTool } from "niceeval/scorers";
`;

describe("porting promptfoo's JSON and equality checks (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({
      // zod-to-json-schema's default shape: a root $ref beside the definitions it points into.
      "evals/order.schema.json": JSON.stringify({
        $ref: "#/definitions/Order",
        definitions: {
          Order: {
            type: "object",
            properties: { id: { type: "integer" } },
            required: ["id"],
            additionalProperties: false,
          },
        },
        $schema: "http://json-schema.org/draft-07/schema#",
      }),
      "evals/draft07.eval.ts": `${header}import schema from "./order.schema.json" with { type: "json" };
export const orders = defineSuite<unknown, unknown>({
  id: "orders",
  cases: [{ id: "valid", input: { id: 1 } }, { id: "invalid", input: { id: "1" } }],
  target: (order) => order,
  scorers: [bindScorer<unknown, unknown>({ id: "schema", tool: jsonSchemaValidTool, driver: evalScorersProvider,
    mapInput: ({ output }) => ({ actual: output, schema }) })],
});
`,
      "evals/isjson.eval.ts": `${header}export const isJson = defineSuite<string, string>({
  id: "is-json",
  cases: [{ id: "json", input: '{"answer": "q0"}' }, { id: "chatty", input: 'Sure! Here is the JSON: {"answer": "q1"}' }],
  target: (answer) => answer,
  scorers: [bindScorer<string, unknown>({ id: "is-json", tool: jsonSchemaValidTool, driver: evalScorersProvider,
    mapInput: ({ output }) => ({ actual: output, schema: { type: "object", required: ["answer"] }, parseJson: true }) })],
});
`,
      "evals/numbers.eval.ts": `${header}export const numbers = defineSuite<string, number>({
  id: "numbers",
  cases: [{ id: "sum", input: "2+40", expected: 42 }],
  target: () => 42,
  scorers: [bindScorer<number, number>({ id: "exact", tool: exactMatchTool, driver: evalScorersProvider,
    mapInput: ({ output, expected }) => ({ actual: output, expected }) as never })],
});
`,
    });
  });
  afterAll(() => project.cleanup());

  it("validates a draft-07 $ref beside definitions, fails non-JSON text and names every wrong field", async () => {
    const run = await runCli(["run", "--no-store"], project.dir);
    expect(run.stdout).not.toContain("invalid schema");
    expect(run.stdout).toMatch(/✓ valid passed/);
    expect(run.stdout).toContain("/id: must be integer, got string");
    expect(run.stdout).toMatch(/✓ json passed/);
    expect(run.stdout).toMatch(/✗ chatty failed/);
    expect(run.stdout).toContain(
      'actual is not JSON: at line 1, column 1 (found "S"), wanted a JSON value: "Sure! Here is the JS…"',
    );
    expect(run.stdout).toContain(
      'invalid input for tool "eval.exact-match": actual: Invalid input: expected string, received number; expected: Invalid input: expected string, received number.',
    );
    // The chatty answer is a failed case with a score, not an errored one left out of the numbers.
    expect(
      run.stdout.match(/2 cases: 1 passed, 1 failed, 0 errored, 0 skipped · mean score 0.5/g),
    ).toHaveLength(2);
    expect(run.stdout).toContain(
      "3 evals · 5 cases · 2 passed (40% of 5, 95% CI 11.8–76.9%) · 2 failed · 1 errored",
    );
    expect(run.code).toBe(1);
  });
});
