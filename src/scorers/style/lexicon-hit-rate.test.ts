import { describe, expect, it } from "vitest";
import { ToolInputError } from "../../errors.js";
import { runTool } from "../../tool/index.js";
import { lexiconHitRateTool, styleScorersProvider } from "./index.js";

const run = (input: { text: string; lexicon: string[]; threshold?: number }) =>
  runTool({ tool: lexiconHitRateTool, candidates: [styleScorersProvider], input });

describe("eval.lexicon-hit-rate", () => {
  it("is the share of terms found as whole words, passing at 0.5 by default", async () => {
    const score = await run({ text: "Il faut écrire lentement.", lexicon: ["écrire", "lire"] });
    expect(score).toMatchObject({ value: 0.5, passed: true, label: "lexicon-hit-rate" });
    expect(score.rationale).toContain('found: "écrire"; missing: "lire"');
  });

  it("writes the hit rate with the digits that tell it from the threshold", async () => {
    const score = await run({
      text: "Il faut écrire et lire.",
      lexicon: ["écrire", "lire", "dire"],
      threshold: 0.67,
    });
    expect(score).toMatchObject({ value: 2 / 3, passed: false });
    expect(score.rationale).toContain("hit rate 0.667 < 0.67");
  });

  it("does not match inside words, where ASCII \\b would", async () => {
    // "lire" sits inside "élire"; "écrire" inside "réécrire"; "crire" inside "écrire".
    const score = await run({
      text: "Il faut élire et réécrire.",
      lexicon: ["lire", "écrire", "crire"],
    });
    expect(score.value).toBe(0);
  });

  it("matches NFD text against NFC terms and NFC text against NFD terms", async () => {
    const nfc = "Une écriture très élégante.";
    const nfd = nfc.normalize("NFD");
    expect((await run({ text: nfd, lexicon: ["écriture", "élégante"] })).value).toBe(1);
    expect((await run({ text: nfc, lexicon: ["écriture".normalize("NFD")] })).value).toBe(1);
    // Without normalisation an NFD "é" is "e" + a mark: the term "e" must not match there.
    expect((await run({ text: nfd, lexicon: ["e"] })).value).toBe(0);
  });

  it("is case-insensitive, folds apostrophes, and matches multi-word terms across whitespace", async () => {
    const score = await run({
      text: "ÉCRIRE aujourd’hui une mise\nen abyme.",
      lexicon: ["écrire", "aujourd'hui", "mise en abyme"],
    });
    expect(score.value).toBe(1);
  });

  it("counts terms equal after folding once", async () => {
    const score = await run({
      text: "écrire",
      lexicon: ["écrire", "Écrire", "écrire".normalize("NFD"), "lire"],
    });
    expect(score.value).toBe(0.5);
  });

  it("treats regex characters in terms literally", async () => {
    expect((await run({ text: "le c++ moderne", lexicon: ["c++"] })).value).toBe(1);
    expect((await run({ text: "abc", lexicon: ["a.c"] })).value).toBe(0);
  });

  it("finds a term of 100,000 characters, naming it in a short reason", async () => {
    const long = "écrire ".repeat(14_286).trim();
    const score = await run({
      text: `Il faut ${long.toUpperCase()}.`,
      lexicon: [long, "x".repeat(100_000)],
    });
    expect(score.value).toBe(0.5);
    expect(score.rationale).toContain(`found: "écrire écrire`);
    expect(score.rationale).toContain("… (100000 chars)");
    expect(score.rationale!.length).toBeLessThan(400);
  });

  it("scores a lexicon of 200,000 terms, listing ten of each kind", async () => {
    const lexicon = Array.from({ length: 200_000 }, (_, i) => `mot${i}`);
    const score = await run({ text: "Le mot7 et le mot199999, pas mot2.", lexicon });
    expect(score.value).toBe(3 / 200_000);
    expect(score.rationale).toContain(
      'found: "mot2", "mot7", "mot199999"; missing: "mot0", "mot1"',
    );
    expect(score.rationale).toContain("(+199987 more)");
  });

  it("applies the caller's threshold", async () => {
    const score = await run({
      text: "écrire",
      lexicon: ["écrire", "lire", "dire"],
      threshold: 0.4,
    });
    expect(score).toMatchObject({ value: 1 / 3, passed: false });
  });

  it("scores empty text 0, failing", async () => {
    expect(await run({ text: "", lexicon: ["écrire"] })).toMatchObject({ value: 0, passed: false });
  });

  it("rejects an empty lexicon with a ToolInputError naming the field", async () => {
    const error = await run({ text: "écrire", lexicon: [] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolInputError);
    expect((error as ToolInputError).issues[0]?.path).toBe("lexicon");
    expect((error as ToolInputError).message).toContain("lexicon");
  });

  it("rejects a blank term, naming its index", async () => {
    const error = await run({ text: "écrire", lexicon: ["écrire", "  "] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolInputError);
    expect((error as ToolInputError).issues[0]?.path).toBe("lexicon[1]");
  });

  it("says a threshold is a share, and which one a percentage meant", async () => {
    const error = await runTool({
      tool: lexiconHitRateTool,
      candidates: [styleScorersProvider],
      input: { text: "écrire", lexicon: ["écrire"], threshold: 50 },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolInputError);
    expect((error as Error).message).toContain(
      "threshold: must be a share from 0 to 1 (0.5 for 50%), got 50",
    );
  });

  it("does not find a word inside aujourd'hui or presqu'île, but finds it after an elision", async () => {
    // By hand: "hui" and "île" are no words of this text; "aujourd'hui", "presqu'île", "éveille"
    // (after s') and "été" (after l') are: 4 of 6.
    const score = await run({
      text: "Aujourd’hui, la presqu’île s’éveille ; l’été vient.",
      lexicon: ["hui", "île", "aujourd'hui", "presqu'île", "éveille", "été"],
    });
    expect(score).toMatchObject({ value: 4 / 6 });
    expect(score.rationale).toContain('missing: "hui", "île"');
  });
});
