// The official JSON-Schema-Test-Suite (vendored in test/fixtures/json-schema-test-suite) run
// through the real tool, as a user calls it: agreement per draft, and not one throw.
import { describe, expect, it } from "vitest";
import { loadSuite, type SuiteDraft } from "../../../test/fixtures/json-schema-test-suite/load.mjs";
import { runTool } from "../../tool/run-tool.js";
import type { FormatMode } from "./json-schema.js";
import { type JsonSchemaValidInput, jsonSchemaValidTool } from "./json-schema-valid.js";
import { evalScorersProvider } from "./provider.js";

interface Agreement {
  agreed: number;
  total: number;
  threw: number;
  errored: number;
}

async function measure(
  draft: SuiteDraft,
  formats: FormatMode,
  optional: boolean,
): Promise<Agreement> {
  const tally: Agreement = { agreed: 0, total: 0, threw: 0, errored: 0 };
  for (const group of loadSuite(draft, { formats: optional })) {
    for (const test of group.tests) {
      tally.total++;
      const input = { actual: test.data, schema: group.schema, draft, formats };
      try {
        const score = await runTool({
          tool: jsonSchemaValidTool,
          candidates: [evalScorersProvider],
          input: input as JsonSchemaValidInput as never,
        });
        if (score.errored) tally.errored++;
        else if (score.passed === test.valid) tally.agreed++;
      } catch {
        tally.threw++;
      }
    }
  }
  return tally;
}

function report(name: string, tally: Agreement): number {
  const share = tally.agreed / tally.total;
  console.log(
    `JSON-Schema-Test-Suite ${name}: ${tally.agreed}/${tally.total} agree (${(share * 100).toFixed(2)}%), ${tally.errored} errored, ${tally.threw} threw`,
  );
  return share;
}

// Formats as each draft defines them: draft-07 asserts them, 2020-12 makes them annotations.
const required: [SuiteDraft, FormatMode][] = [
  ["draft-07", "assert"],
  ["2020-12", "annotate"],
];

describe("eval.json-schema-valid against the JSON-Schema-Test-Suite", () => {
  for (const [draft, formats] of required) {
    it(`agrees with at least 99% of the required ${draft} tests and never throws`, async () => {
      const tally = await measure(draft, formats, false);
      expect(report(`${draft} required`, tally)).toBeGreaterThanOrEqual(0.99);
      expect(tally.threw).toBe(0);
    }, 120_000);

    it(`knows the standard formats of ${draft} when formats assert`, async () => {
      const tally = await measure(draft, "assert", true);
      expect(report(`${draft} optional/format`, tally)).toBeGreaterThanOrEqual(0.98);
      expect(tally.threw).toBe(0);
    }, 120_000);
  }
});
