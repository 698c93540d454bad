// Counts in words: "1 case", "2 cases". English nouns that take an s, which is all the reports use.

/** `noun`, with an s unless `count` is 1. */
export const pluralNoun = (count: number, noun: string): string =>
  count === 1 ? noun : `${noun}s`;

/** `count` and its noun: "1 case", "2 cases". */
export const plural = (count: number, noun: string): string =>
  `${count} ${pluralNoun(count, noun)}`;
