import { declareJudgeFree } from "../../judge/ledger.js";
import { noteShippedDriver } from "../../tool/shipped-driver.js";
import { defineDriver } from "../../tool/tool.js";
import { lexiconHitRateImpl } from "../style/lexicon-hit-rate.js";
import { textStatsImpl } from "../style/text-stats-tool.js";
import { exactMatchImpl } from "./exact-match.js";
import { jsonSchemaValidImpl } from "./json-schema-valid.js";
import { latencyBudgetImpl } from "./latency-budget.js";
import { regexMatchImpl } from "./regex-match.js";

/**
 * The built-in provider of every deterministic scorer tool: `eval.exact-match`,
 * `eval.regex-match`, `eval.json-schema-valid`, `eval.latency-budget`, and the French style
 * statistics `eval.text-stats` and `eval.lexicon-hit-rate` (which `styleScorersProvider` also
 * implements). The model-backed tools have drivers of their own (`makeLlmJudgeDriver(judge)`…).
 * @example
 * await runTool({ tool: exactMatchTool, candidates: [evalScorersProvider], input: { actual: "hello", expected: "hello" } });
 * // → { value: 1, passed: true, label: "exact-match", rationale: "actual equals expected" }
 */
export const evalScorersProvider = declareJudgeFree(
  defineDriver({
    id: "niceeval.eval-scorers",
    implementations: [
      exactMatchImpl,
      regexMatchImpl,
      jsonSchemaValidImpl,
      latencyBudgetImpl,
      textStatsImpl,
      lexiconHitRateImpl,
    ],
  }),
);
for (const implementation of evalScorersProvider.implementations.values())
  noteShippedDriver(implementation.tool, "evalScorersProvider");
