import { declareJudgeFree } from "../../judge/ledger.js";
import { defineDriver } from "../../tool/index.js";
import { lexiconHitRateImpl } from "./lexicon-hit-rate.js";
import { textStatsImpl } from "./text-stats-tool.js";

/**
 * The builtin provider of the two deterministic style scorers: `eval.text-stats` and
 * `eval.lexicon-hit-rate` (seed 002's name). `evalScorersProvider` implements them too, beside
 * the other deterministic tools, so one driver serves every built-in deterministic scorer.
 */
export const styleScorersProvider = declareJudgeFree(
  defineDriver({
    id: "niceeval.style-scorers",
    implementations: [textStatsImpl, lexiconHitRateImpl],
  }),
);
