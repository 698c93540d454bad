// Unicode-aware word matching shared by the lexicon scorer and the lexicon extractor.

const WORD_TOKEN = /[\p{L}\p{M}\p{N}]+(?:['-][\p{L}\p{M}\p{N}]+)*/gu;
/**
 * French elided words before an apostrophe (`l'été`, `qu'il`, `jusqu'à`): dropped from a token,
 * so that what follows is the word. Any other apostrophe is inside a word: `aujourd'hui`,
 * `presqu'île` stay whole.
 */
const ELISION = /^(?:(?:[cdjlmnst]|qu|jusqu|lorsqu|puisqu|quoiqu)')+/u;

/** NFC form with typographic apostrophes folded to `'`, so "aujourd’hui" meets "aujourd'hui". */
export function normalizeText(text: string): string {
  return text.normalize("NFC").replace(/[’ʼ]/gu, "'");
}

/**
 * Lower-cased NFC word tokens that hold at least one letter: hyphenated compounds and words with
 * an apostrophe inside (`aujourd'hui`) kept whole, an elided article or pronoun (`l'`, `qu'`) cut
 * off.
 */
export function wordTokens(text: string): string[] {
  const tokens = normalizeText(text).toLowerCase().match(WORD_TOKEN) ?? [];
  return tokens.map((token) => token.replace(ELISION, "")).filter((token) => /\p{L}/u.test(token));
}
