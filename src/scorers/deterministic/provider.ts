import { defineDriver } from "../../tool/tool.js";
import { exactMatchImpl } from "./exact-match.js";
import { jsonSchemaValidImpl } from "./json-schema-valid.js";
import { latencyBudgetImpl } from "./latency-budget.js";
import { regexMatchImpl } from "./regex-match.js";

/**
 * The built-in provider of the four deterministic scorer tools: `eval.exact-match`,
 * `eval.regex-match`, `eval.json-schema-valid` and `eval.latency-budget`.
 * @example
 * await runTool({ tool: exactMatchTool, candidates: [evalScorersProvider], input: { actual: "hello", expected: "hello" } });
 * // → { value: 1, passed: true, label: "exact-match", rationale: "actual equals expected" }
 */
export const evalScorersProvider = defineDriver({
  id: "niceeval.eval-scorers",
  implementations: [exactMatchImpl, regexMatchImpl, jsonSchemaValidImpl, latencyBudgetImpl],
});
