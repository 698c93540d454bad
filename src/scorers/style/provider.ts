import { defineDriver } from "../../tool/index.js";
import { lexiconHitRateImpl } from "./lexicon-hit-rate.js";
import { textStatsImpl } from "./text-stats-tool.js";

/**
 * The builtin provider of the two deterministic style scorers: `eval.text-stats` and
 * `eval.lexicon-hit-rate`. Pass it as a candidate to `runTool` or a scorer binding.
 */
export const styleScorersProvider = defineDriver({
  id: "niceeval.style-scorers",
  implementations: [textStatsImpl, lexiconHitRateImpl],
});
