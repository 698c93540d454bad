import * as z from "zod";
import { type Score, scoreSchema } from "../../score/score.js";
import { fixedDecimals, shownApart } from "../../shown-apart.js";
import { defineTool, implementTool } from "../../tool/index.js";
import { preview } from "../deterministic/preview.js";
import { scorerInputSchema, shareSchema } from "../tool-input.js";
import { findWholeWords } from "./term-search.js";
import { normalizeText } from "./words.js";

const LABEL = "lexicon-hit-rate";
const DEFAULT_THRESHOLD = 0.5;
const LISTED_TERMS = 10;

const lexiconHitRateInputSchema = scorerInputSchema({
  text: z.string(),
  lexicon: z
    .array(z.string().refine((term) => term.trim() !== "", "a lexicon term must not be blank"))
    .min(1, "the lexicon needs at least one term"),
  /** Lowest accepted hit rate (default 0.5). */
  threshold: shareSchema().optional(),
});

/**
 * `eval.lexicon-hit-rate`: the share of distinct lexicon terms found in the text as whole
 * words. Matching is Unicode-aware (a term is not preceded or followed by a letter, mark or
 * digit, nor by an apostrophe inside a word: `hui` is not in `aujourd'hui`, `été` is in `l'été`),
 * case-insensitive, and runs on NFC text and terms (typographic apostrophes folded);
 * terms equal under that folding count once. value = hit rate; passed = hitRate >= threshold
 * (default 0.5). An empty lexicon is rejected by the input schema.
 */
export const lexiconHitRateTool = defineTool({
  id: "eval.lexicon-hit-rate",
  description:
    "Share of lexicon terms present as whole words in a text (Unicode-aware, NFC, case-insensitive).",
  inputSchema: lexiconHitRateInputSchema,
  outputSchema: scoreSchema,
});

/**
 * Implementation of {@link lexiconHitRateTool}.
 * @example
 * await runTool({ tool: lexiconHitRateTool, candidates: [styleScorersProvider],
 *   input: { text: "Il faut écrire.", lexicon: ["écrire", "lire"] } }); // → value 0.5, passed true
 */
export const lexiconHitRateImpl = implementTool(
  lexiconHitRateTool,
  ({ text, lexicon, threshold }): Score => {
    const limit = threshold ?? DEFAULT_THRESHOLD;
    const terms = distinctTerms(lexicon);
    const hits = findWholeWords(normalizeText(text), terms);
    const found: string[] = [];
    const missing: string[] = [];
    for (const [i, term] of terms.entries()) (hits[i] ? found : missing).push(term);
    const hitRate = terms.length === 0 ? 0 : found.length / terms.length;
    const passed = hitRate >= limit;
    return {
      value: hitRate,
      passed,
      label: LABEL,
      rationale:
        `${found.length}/${terms.length} terms found, hit rate ${shownApart(hitRate, limit, fixedDecimals, 2, 20)} ${passed ? ">=" : "<"} ${limit}` +
        `; found: ${list(found)}; missing: ${list(missing)}`,
    };
  },
);

function distinctTerms(lexicon: readonly string[]): string[] {
  const byKey = new Map<string, string>();
  for (const raw of lexicon) {
    const term = normalizeText(raw).trim();
    const key = term.toLowerCase().replace(/\s+/gu, " ");
    if (term !== "" && !byKey.has(key)) byKey.set(key, term);
  }
  return [...byKey.values()];
}

// Quoted and cut: a term may hold a comma, or be 100,000 characters long.
function list(terms: readonly string[]): string {
  if (terms.length === 0) return "none";
  const shown = terms.slice(0, LISTED_TERMS).map(preview).join(", ");
  return terms.length > LISTED_TERMS ? `${shown} (+${terms.length - LISTED_TERMS} more)` : shown;
}
