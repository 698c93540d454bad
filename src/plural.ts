// Counts in words: "1 case", "2 cases". English nouns that take an s, which is all the reports use.

/** `noun`, with an s unless `count` is 1. */
export const pluralNoun = (count: number, noun: string): string =>
  count === 1 ? noun : `${noun}s`;

/** `count` and its noun: "1 case", "2 cases". */
export const plural = (count: number, noun: string): string =>
  `${count} ${pluralNoun(count, noun)}`;

/** Items in words: "a", "a and b", "a, b and c". */
export function joinWords(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? "";
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}
