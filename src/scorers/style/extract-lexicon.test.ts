import { describe, expect, it } from "vitest";
import { type ExtractLexiconOptions, extractLexicon } from "./extract-lexicon.js";

describe("extractLexicon", () => {
  it("ranks by frequency without a background, ties alphabetically", () => {
    const corpus = ["L'écriture lente, l'écriture sûre.", "Une rature, une écriture, une lettre."];
    expect(extractLexicon(corpus, { top: 3 })).toEqual(["écriture", "lente", "lettre"]);
  });

  it("drops words shorter than minLen (default 4) and numbers", () => {
    expect(extractLexicon(["les mots de 2024 sont là"], {})).toEqual(["mots", "sont"]);
    expect(extractLexicon(["les mots de 2024"], { minLen: 2 })).toEqual(["de", "les", "mots"]);
  });

  it("keeps words with an inner apostrophe whole and cuts elided articles off", () => {
    const terms = extractLexicon([
      "L’été, l’hiver, jusqu’à aujourd’hui, presqu'île d'aujourd'hui.",
    ]);
    expect(terms).toEqual(["aujourd'hui", "hiver", "presqu'île"]);
  });

  it("keeps hyphenated compounds whole and merges NFD with NFC", () => {
    const corpus = ["peut-être écrire", "écrire".normalize("NFD")];
    expect(extractLexicon(corpus)).toEqual(["écrire", "peut-être"]);
  });

  it("ranks by log-odds against a background, keeping only over-used terms", () => {
    const corpus = ["dans la forêt sombre", "dans la forêt profonde", "dans une forêt"];
    const background = ["dans la ville", "dans le métro", "dans la rue", "dans un parc"];
    const lexicon = extractLexicon(corpus, { background });
    expect(lexicon[0]).toBe("forêt");
    expect(lexicon).not.toContain("dans");
    expect(lexicon).toEqual(["forêt", "profonde", "sombre"]);
  });

  it("refuses a misspelt option instead of keeping its default", () => {
    expect(() => extractLexicon(["abcd efgh"], { tpo: 1 } as never)).toThrow(
      'extractLexicon: unknown key "options.tpo" (did you mean "options.top"?)',
    );
  });

  it("refuses what is not a list of texts, naming the field and what it got", () => {
    // A string was read character by character: no error, and no lexicon.
    expect(() => extractLexicon("abcd efgh" as never)).toThrow(
      'extractLexicon: corpusTexts must be a list of texts, got a string ("abcd efgh"); pass [text] for one text',
    );
    expect(() => extractLexicon(undefined as never)).toThrow(
      "extractLexicon: corpusTexts must be a list of texts, got undefined",
    );
    expect(() => extractLexicon(["abcd", null] as never)).toThrow(
      "extractLexicon: corpusTexts[1] must be a string, got null",
    );
    expect(() => extractLexicon(["abcd"], { background: [3] as never })).toThrow(
      "extractLexicon: options.background[0] must be a string, got 3",
    );
    expect(() => extractLexicon(["abcd"], null as never)).toThrow(
      "extractLexicon: options must be an object { top?, minLen?, background? }, got null",
    );
    // Other lists of texts, which were read before, still are.
    expect(extractLexicon(new Set(["abcd abcd efgh"]) as never)).toEqual(["abcd", "efgh"]);
  });

  it("falls back to frequency when the background holds no word", () => {
    expect(extractLexicon(["forêt forêt sombre"], { background: ["", "123"] })).toEqual([
      "forêt",
      "sombre",
    ]);
  });

  it("returns nothing for an empty corpus", () => {
    expect(extractLexicon([])).toEqual([]);
    expect(extractLexicon([""], { background: ["texte"] })).toEqual([]);
  });

  it("rejects invalid options, naming them", () => {
    expect(() => extractLexicon(["x"], { top: 0 })).toThrow(/options\.top/);
    expect(() => extractLexicon(["x"], { minLen: 1.5 })).toThrow(/options\.minLen/);
  });

  it("shows a string given for a number as a string, not as that number", () => {
    // `got 3` for the string "3" read as if 3 had been refused.
    const options = { top: "3", minLen: "2" } as unknown as ExtractLexiconOptions;
    expect(() => extractLexicon(["x"], options)).toThrow(
      'extractLexicon: options.top must be a positive integer (got "3", a string); pass the number 3',
    );
    expect(() =>
      extractLexicon(["x"], { minLen: "2" } as unknown as ExtractLexiconOptions),
    ).toThrow(
      'extractLexicon: options.minLen must be a positive integer (got "2", a string); pass the number 2',
    );
    expect(() => extractLexicon(["x"], { top: 0 })).toThrow(
      "extractLexicon: options.top must be a positive integer (got 0)",
    );
  });
});
