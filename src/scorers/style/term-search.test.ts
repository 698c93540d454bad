import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findWholeWords } from "./term-search.js";

/**
 * What each term was matched with before: one case-insensitive Unicode regex per term, on text
 * and term where an apostrophe inside a word (between letters, not after an elided `l`, `qu`…)
 * is made a letter, so that `aujourd'hui` is one word and `l'été` two.
 */
function regexFinds(text: string, term: string): boolean {
  const [joinedText, joinedTerm] = [joinApostrophes(text), joinApostrophes(term)];
  const escaped = joinedTerm.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&").replace(/\s+/gu, "\\s+");
  const word = "[\\p{L}\\p{M}\\p{N}]";
  return new RegExp(`(?<!${word})${escaped}(?!${word})`, "iu").test(joinedText);
}

const ELIDED = /^(?:c|d|j|l|m|n|s|t|qu|jusqu|lorsqu|puisqu|quoiqu)$/iu;
const INNER_APOSTROPHE = "\ua78c"; // ꞌ, a letter that the alphabet below does not hold

function joinApostrophes(text: string): string {
  const chars = [...text];
  const isWord = (ch: string | undefined) => ch !== undefined && /[\p{L}\p{M}\p{N}]/u.test(ch);
  for (let i = 0; i < chars.length; i++) {
    if (chars[i] !== "'" || !isWord(chars[i - 1]) || !isWord(chars[i + 1])) continue;
    let start = i;
    while (isWord(chars[start - 1])) start--;
    if (!ELIDED.test(chars.slice(start, i).join(""))) chars[i] = INNER_APOSTROPHE;
  }
  return chars.join("");
}

// Letters that fold oddly (ſ, Kelvin sign, dotless ı, dotted İ, final sigma, ß and ẞ, Deseret),
// marks, digits, whitespace, punctuation, an emoji and a lone surrogate.
const ALPHABET = [
  "a",
  "A",
  "s",
  "S",
  "ſ",
  "k",
  "K",
  "\u212a",
  "i",
  "I",
  "ı",
  "İ",
  "σ",
  "ς",
  "Σ",
  "ß",
  "ẞ",
  "é",
  "\u0301",
  "1",
  "٣",
  "\u{10400}",
  "\u{10428}",
  " ",
  "\u00a0",
  "\n",
  "+",
  "-",
  "'",
  ".",
  "😀",
  "\ud800",
];
const piece = fc.constantFrom(...ALPHABET);
const text = fc.array(piece, { maxLength: 12 }).map((parts) => parts.join(""));
const term = fc
  .array(piece, { minLength: 1, maxLength: 4 })
  .map((parts) => parts.join("").trim())
  .filter((t) => t !== "");

describe("findWholeWords", () => {
  it("finds what one case-insensitive Unicode regex per term finds", () => {
    fc.assert(
      fc.property(text, fc.array(term, { minLength: 1, maxLength: 6 }), (haystack, terms) => {
        expect(findWholeWords(haystack, terms)).toEqual(terms.map((t) => regexFinds(haystack, t)));
      }),
      { numRuns: 300 },
    );
  });

  it("takes two characters for one exactly where a case-insensitive Unicode regex does", () => {
    // Every character that case mapping or folding changes, against every other one.
    const cased: string[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      if (/[\p{CWCF}\p{CWCM}]/u.test(ch)) cased.push(ch);
    }
    const joined = cased.join("");
    const positions = new Map<number, number>();
    let at = 0;
    for (const [i, ch] of cased.entries()) {
      positions.set(at, i);
      at += ch.length;
    }
    let mismatches = 0;
    for (const ch of cased) {
      const byRegex = new Array<boolean>(cased.length).fill(false);
      for (const m of joined.matchAll(new RegExp(`\\u{${ch.codePointAt(0)!.toString(16)}}`, "giu")))
        byRegex[positions.get(m.index)!] = true;
      const found = findWholeWords(ch, cased);
      for (let i = 0; i < cased.length; i++) if (found[i] !== byRegex[i]) mismatches++;
    }
    expect(cased.length).toBeGreaterThan(2000);
    expect(mismatches).toBe(0);
  });

  it("finds a term of 100,000 characters, and each of 200,000 terms, in a text of 1 MB", () => {
    const long = "écrire ".repeat(14_286).trim();
    const prose = `${"Il faut ".repeat(60_000)}${long.toUpperCase()}.`;
    const terms = Array.from({ length: 200_000 }, (_, i) => `mot${i}`);
    terms.push(long, "faut", "il faut il", "écrire écrire");
    const found = findWholeWords(prose, terms);
    expect(found.slice(-4)).toEqual([true, true, true, true]);
    expect(found.filter(Boolean).length).toBe(4);
  });

  it("reads an apostrophe as a word's edge only after an elided word", () => {
    const text = "Aujourd'hui, la presqu'île ; l'été qu'il fit jusqu'à S'il";
    expect(
      findWholeWords(text, [
        "hui",
        "aujourd",
        "aujourd'hui",
        "île",
        "presqu'île",
        "été",
        "il",
        "à",
      ]),
    ).toEqual([false, false, true, false, true, true, true, true]);
  });

  it("matches a whitespace run inside a term to any run, and none at a word's edge", () => {
    expect(findWholeWords("une mise\n \ten abyme", ["mise en abyme", "mise en", "e"])).toEqual([
      true,
      true,
      false,
    ]);
    expect(findWholeWords("c++ et a+b", ["c++", "+b", "a", "a+"])).toEqual([
      true,
      false,
      true,
      false,
    ]);
  });
});
