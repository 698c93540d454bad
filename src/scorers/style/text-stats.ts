import {
  countWords,
  isBulletLine,
  isQuestion,
  nonBlankLines,
  splitSentences,
} from "./sentences.js";

/** An inclusive band of mean sentence length, in words. */
export interface LengthBand {
  min: number;
  max: number;
}

/** The band used by `eval.text-stats` when the caller gives none: 5 to 30 words. */
export const DEFAULT_LENGTH_BAND: Readonly<LengthBand> = Object.freeze({ min: 5, max: 30 });

/** Style statistics of a French text, as computed by {@link computeTextStats}. */
export interface TextStats {
  /** Sentences found by {@link splitSentences}. */
  sentenceCount: number;
  /** Lines holding something other than whitespace. */
  lineCount: number;
  /** Lines that start with a bullet marker. */
  bulletLineCount: number;
  /** bulletLineCount / lineCount (0 when there is no line). */
  bulletsRatio: number;
  /** Share of sentences holding at least one first-person marker (0 when there is no sentence). */
  firstPersonRatio: number;
  /** Share of sentences that ask a question, {@link isQuestion} (0 when there is no sentence). */
  questionRate: number;
  /** Mean words per sentence (0 when there is no sentence). */
  meanSentenceLength: number;
  /** Whether meanSentenceLength lies in the band, bounds included. */
  inBand: boolean;
}

// je, j', moi, mon/ma/mes, me/m', nous, notre/nos, mien(ne)(s): whole words, any case
// (but `Me Dupont`, Maître Dupont: MAITRE, and `Notre-Dame`: NOTRE_COMPOUND).
const FIRST_PERSON =
  /(?<![\p{L}\p{M}\p{N}])(?:(?:je|moi|mon|ma|mes|me|nous|notre|nos|mien|mienne|miens|miennes)(?![\p{L}\p{M}\p{N}])|[jm]['’ʼ](?=\p{L}))/iu;

/**
 * Share of non-blank lines that are bullet lines (`-`, `*`, `•`, or `1.`/`1)` followed by
 * whitespace). `1.5 million` and `-42 degrés` are prose. 0 for a text without lines.
 */
export function bulletsRatio(text: string): number {
  const lines = nonBlankLines(text);
  if (lines.length === 0) return 0;
  return lines.filter(isBulletLine).length / lines.length;
}

/**
 * Share of sentences that hold at least one French first-person marker (je, j', moi,
 * mon/ma/mes, me/m', nous, notre/nos, mien(ne)(s)), so one "je" makes its whole sentence
 * first-person. 0 for a text without sentences.
 */
export function firstPersonRatio(text: string): number {
  return shareOf(splitSentences(text), isFirstPerson);
}

/**
 * Share of sentences that ask a question (ending with `?`, or a quoted question before its
 * incise). 0 for a text without sentences.
 */
export function questionRate(text: string): number {
  return shareOf(splitSentences(text), isQuestion);
}

/** Mean number of words per sentence (words are whitespace-separated tokens). 0 without sentences. */
export function meanSentenceLength(text: string): number {
  return meanLength(splitSentences(text));
}

/**
 * All the style statistics of a French text in one pass.
 * @example
 * computeTextStats("Je pense que ceci illustre bien mon propos.").firstPersonRatio // → 1
 */
export function computeTextStats(
  text: string,
  lengthBand: LengthBand = DEFAULT_LENGTH_BAND,
): TextStats {
  const sentences = splitSentences(text);
  const lines = nonBlankLines(text);
  const bulletLineCount = lines.filter(isBulletLine).length;
  const mean = meanLength(sentences);
  return {
    sentenceCount: sentences.length,
    lineCount: lines.length,
    bulletLineCount,
    bulletsRatio: lines.length === 0 ? 0 : bulletLineCount / lines.length,
    firstPersonRatio: shareOf(sentences, isFirstPerson),
    questionRate: shareOf(sentences, isQuestion),
    meanSentenceLength: mean,
    inBand: mean >= lengthBand.min && mean <= lengthBand.max,
  };
}

/** `Me` before a capitalised name is Maître (`Me Dupont`), the lawyer's title, not "me". */
const MAITRE = /(?<![\p{L}\p{M}\p{N}])Me(?=\s+\p{Lu})/gu;
/** `Notre-Dame`, `Notre-Père`, `Notre-Seigneur`: proper nouns, not "notre". */
const NOTRE_COMPOUND = /(?<![\p{L}\p{M}\p{N}])Notre-(?=\p{Lu})/gu;

function isFirstPerson(sentence: string): boolean {
  return FIRST_PERSON.test(sentence.replace(MAITRE, "").replace(NOTRE_COMPOUND, ""));
}

function shareOf(sentences: readonly string[], predicate: (sentence: string) => boolean): number {
  if (sentences.length === 0) return 0;
  return sentences.filter(predicate).length / sentences.length;
}

function meanLength(sentences: readonly string[]): number {
  if (sentences.length === 0) return 0;
  let words = 0;
  for (const sentence of sentences) words += countWords(sentence);
  return words / sentences.length;
}
