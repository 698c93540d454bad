import { describe, expect, it } from "vitest";
import { runEvals } from "../runner/run.js";
import { evalScorersProvider, jsonSchemaValidTool } from "../scorers/index.js";
import type { AttemptRecord } from "./record.js";
import { bindScorer, defineSuite } from "./suite.js";

describe("defineSuite", () => {
  it("reports a scorer that could not judge as errored, not as the output's failure", async () => {
    const suite = defineSuite<number, { doc: unknown }>({
      id: "schema-errors",
      cases: [{ id: "bad-schema", input: 1 }],
      target: () => ({ doc: { id: 1 } }),
      scorers: [
        bindScorer({
          id: "schema",
          tool: jsonSchemaValidTool,
          driver: evalScorersProvider,
          mapInput: ({ output }) => ({ actual: output.doc, schema: { type: "no-such-type" } }),
        }),
      ],
    });
    const records: AttemptRecord[] = [];
    await runEvals([{ eval: suite }], { onRecord: (r) => records.push(r) });
    expect(records[0]?.verdict).toBe("errored");
    expect(records[0]?.judgments[0]).toMatchObject({ state: "errored", earned: null });
    expect(records[0]?.judgments[0]?.reason).toMatch(/scorer "schema": invalid schema/);
  });

  it("gives the target its trial and a trace that lands on the record", async () => {
    const suite = defineSuite<string, string>({
      id: "traced",
      cases: [{ id: "a", input: "x", cluster: "doc-1" }],
      trials: 2,
      target: (input, { trial, trace }) => {
        trace.message("user", input);
        trace.toolCall("lookup", { q: input }, { output: trial });
        return `${input}-${trial}`;
      },
      scorers: [],
    });
    const records: AttemptRecord[] = [];
    await runEvals([{ eval: suite }], { keepOutput: true, onRecord: (r) => records.push(r) });
    expect(records.map((r) => [r.trial ?? 0, r.output, r.cluster])).toEqual([
      [0, "x-0", "doc-1"],
      [1, "x-1", "doc-1"],
    ]);
    expect(records[1]?.trace?.steps).toEqual([
      { kind: "message", role: "user", content: "x" },
      { kind: "tool-call", name: "lookup", input: { q: "x" }, output: 1 },
    ]);
  });
});
