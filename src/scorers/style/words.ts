// Unicode-aware word matching shared by the lexicon scorer and the lexicon extractor.

/** Letters, combining marks and digits: what a word is made of. */
const WORD_CHAR = "[\\p{L}\\p{M}\\p{N}]";
const WORD_TOKEN = /[\p{L}\p{M}\p{N}]+(?:-[\p{L}\p{M}\p{N}]+)*/gu;

/** NFC form with typographic apostrophes folded to `'`, so "aujourd’hui" meets "aujourd'hui". */
export function normalizeText(text: string): string {
  return text.normalize("NFC").replace(/[’ʼ]/gu, "'");
}

/**
 * A case-insensitive pattern that finds `term` as a whole word: not preceded or followed by a
 * letter, mark or digit (ASCII `\b` would split "écrire"). Inner whitespace matches any run.
 */
export function wholeWordPattern(term: string): RegExp {
  const escaped = normalizeText(term)
    .trim()
    .replace(/[.*+?^${}()|[\]\\]/gu, "\\$&")
    .replace(/\s+/gu, "\\s+");
  return new RegExp(`(?<!${WORD_CHAR})${escaped}(?!${WORD_CHAR})`, "iu");
}

/** Lower-cased NFC word tokens (hyphenated compounds kept whole) that hold at least one letter. */
export function wordTokens(text: string): string[] {
  const tokens = normalizeText(text).toLowerCase().match(WORD_TOKEN) ?? [];
  return tokens.filter((token) => /\p{L}/u.test(token));
}
