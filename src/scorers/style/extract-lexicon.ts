import { type KnownKeys, refuseUnknownKeys } from "../../known-keys.js";
import { show } from "../deterministic/preview.js";
import { wordTokens } from "./words.js";

/** Options of {@link extractLexicon}. */
export interface ExtractLexiconOptions {
  /** How many terms to return (default 50). */
  top?: number | undefined;
  /** Shortest term kept, in characters after NFC (default 4, which drops most French function words). */
  minLen?: number | undefined;
  /** A reference corpus: terms are ranked by how much more the corpus uses them than it. */
  background?: readonly string[] | undefined;
}
const extractLexiconOptionsKeys = {
  top: true,
  minLen: true,
  background: true,
} satisfies KnownKeys<ExtractLexiconOptions>;

const DEFAULT_TOP = 50;
const DEFAULT_MIN_LEN = 4;
/** Added to every count so that a term absent from one corpus keeps finite odds. */
const SMOOTHING = 0.5;

/**
 * Build a signature lexicon from a corpus, for `eval.lexicon-hit-rate`. Words are lower-cased
 * NFC tokens (hyphenated compounds kept whole) holding a letter, at least `minLen` long.
 * Without a background (or with one holding no word) terms rank by frequency. With one, they
 * rank by the log-odds ratio of their smoothed frequency in the corpus against the background
 * (add-0.5 per term over the joint vocabulary), and only terms the corpus over-uses (ratio > 0)
 * are kept. Ties fall back to frequency, then alphabetical order, so the result is stable.
 * @throws AuthoringError when `options` has a key it does not know (`tpo`: "did you mean").
 * @throws TypeError when `corpusTexts` or `options.background` is not a list of strings (a single
 * string included), or `options` not an object; RangeError when `top` or `minLen` is out of range.
 * @example
 * extractLexicon(["l'écriture lente", "écriture et rature"], { top: 1 }) // → ["écriture"]
 */
export function extractLexicon(
  corpusTexts: readonly string[],
  options: ExtractLexiconOptions = {},
): string[] {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(
      `extractLexicon: options must be an object { top?, minLen?, background? }, got ${show(options)}`,
    );
  }
  // A misspelt option (`tpo`) would leave its default without a word.
  refuseUnknownKeys("extractLexicon", options, extractLexiconOptionsKeys, "options");
  const top = options.top ?? DEFAULT_TOP;
  const minLen = options.minLen ?? DEFAULT_MIN_LEN;
  for (const [name, value] of [
    ["top", top],
    ["minLen", minLen],
  ] as const) {
    if (!Number.isInteger(value) || value < 1) throw notACount(name, value);
  }
  const corpus = countTokens(textList("corpusTexts", corpusTexts));
  const candidates = [...corpus.counts.keys()].filter((term) => [...term].length >= minLen);
  const background = options.background
    ? countTokens(textList("options.background", options.background))
    : undefined;
  if (!background || background.total === 0) {
    return candidates.sort((a, b) => byCount(corpus.counts, a, b)).slice(0, top);
  }
  const vocabulary = new Set([...corpus.counts.keys(), ...background.counts.keys()]).size;
  const logOdds = (counts: Counts, term: string): number => {
    const share =
      ((counts.counts.get(term) ?? 0) + SMOOTHING) / (counts.total + SMOOTHING * vocabulary);
    return Math.log(share / (1 - share));
  };
  const scored = candidates
    .map((term) => ({ term, score: logOdds(corpus, term) - logOdds(background, term) }))
    .filter((entry) => entry.score > 0);
  scored.sort((a, b) => b.score - a.score || byCount(corpus.counts, a.term, b.term));
  return scored.slice(0, top).map((entry) => entry.term);
}

/**
 * `texts` as a list of strings, else a TypeError naming `name` and what it got: a string there
 * would be read character by character (no term is that short, so no lexicon and no word), and a
 * null text would fail deep inside.
 */
function textList(name: string, texts: unknown): readonly string[] {
  if (typeof texts === "string") {
    throw new TypeError(
      `extractLexicon: ${name} must be a list of texts, got a string (${show(texts)}); pass [text] for one text`,
    );
  }
  if (typeof (texts as Iterable<unknown> | null | undefined)?.[Symbol.iterator] !== "function") {
    throw new TypeError(`extractLexicon: ${name} must be a list of texts, got ${show(texts)}`);
  }
  const list = Array.isArray(texts) ? texts : [...(texts as Iterable<unknown>)];
  const bad = list.findIndex((text) => typeof text !== "string");
  if (bad !== -1) {
    throw new TypeError(`extractLexicon: ${name}[${bad}] must be a string, got ${show(list[bad])}`);
  }
  return list as readonly string[];
}

interface Counts {
  counts: Map<string, number>;
  total: number;
}

function countTokens(texts: readonly string[]): Counts {
  const counts = new Map<string, number>();
  let total = 0;
  for (const text of texts) {
    for (const token of wordTokens(text)) {
      counts.set(token, (counts.get(token) ?? 0) + 1);
      total += 1;
    }
  }
  return { counts, total };
}

function byCount(counts: ReadonlyMap<string, number>, a: string, b: string): number {
  const difference = (counts.get(b) ?? 0) - (counts.get(a) ?? 0);
  if (difference !== 0) return difference;
  return a < b ? -1 : a > b ? 1 : 0;
}

// A string read as its number ("3" shown as 3) would look refused for no reason.
function notACount(name: string, value: unknown): RangeError {
  const digits = typeof value === "string" && /^\s*\d+\s*$/u.test(value);
  const got = typeof value === "string" ? `${show(value)}, a string` : show(value);
  const hint = digits ? `; pass the number ${String(value).trim()}` : "";
  return new RangeError(
    `extractLexicon: options.${name} must be a positive integer (got ${got})${hint}`,
  );
}
