export { cosineToCentroid, EmbeddingDimensionError } from "./cosine.js";
export { type ExtractLexiconOptions, extractLexicon } from "./extract-lexicon.js";
export { lexiconHitRateImpl, lexiconHitRateTool } from "./lexicon-hit-rate.js";
export { type OpenAiEmbedOptions, openAiEmbed } from "./openai-embed.js";
export {
  makeOutlineFidelityDriver,
  type OutlineFidelityInput,
  outlineFidelityTool,
} from "./outline-fidelity.js";
export {
  type PairwiseVerdict,
  type PairwiseWinner,
  type PairwiseWinRateResult,
  pairwiseWinRate,
} from "./pairwise-win-rate.js";
export { styleScorersProvider } from "./provider.js";
export { splitSentences } from "./sentences.js";
export {
  type EmbedFn,
  type MakeStyleEmbeddingDriverOptions,
  makeStyleEmbeddingDriver,
  type StyleEmbeddingInput,
  styleEmbeddingTool,
} from "./style-embedding.js";
export {
  makeStylePairwiseDriver,
  type StylePairwiseInput,
  stylePairwiseTool,
} from "./style-pairwise.js";
export {
  bulletsRatio,
  computeTextStats,
  firstPersonRatio,
  type LengthBand,
  meanSentenceLength,
  questionRate,
  type TextStats,
} from "./text-stats.js";
export { textStatsImpl, textStatsTool } from "./text-stats-tool.js";
export { parseVerdict } from "./verdict.js";
