import { describe, expect, it } from "vitest";
import {
  bulletsRatio,
  computeTextStats,
  firstPersonRatio,
  meanSentenceLength,
  questionRate,
} from "./text-stats.js";

describe("bulletsRatio", () => {
  it("is bullet lines over non-blank lines", () => {
    expect(bulletsRatio("Intro.\n\n- un\n* deux\n• trois\n1. quatre")).toBe(4 / 5);
  });

  it("counts 1.5 million and -42 degrés as prose", () => {
    expect(bulletsRatio("1.5 million de lecteurs.\n-42 degrés cette nuit.")).toBe(0);
  });

  it("is 0 for empty text", () => {
    expect(bulletsRatio("")).toBe(0);
    expect(bulletsRatio("\n \n")).toBe(0);
  });
});

describe("firstPersonRatio", () => {
  it("is the share of sentences holding a first-person marker", () => {
    expect(firstPersonRatio("Je pense. Il pleut. Nous partons. Elle rit.")).toBe(0.5);
  });

  it("recognises every listed marker, elided forms and both apostrophes", () => {
    const sentences = [
      "J'écris.",
      "J’écris.",
      "Il m'appelle.",
      "Il m’appelle.",
      "C'est moi.",
      "Mon livre.",
      "Ma maison.",
      "Mes amis.",
      "Il me voit.",
      "Notre avis.",
      "Nos avis.",
      "Le mien.",
      "La mienne.",
      "Les miens.",
      "Les miennes.",
      "NOUS VENONS.",
      "Moi-même.",
    ];
    expect(firstPersonRatio(sentences.join(" "))).toBe(1);
  });

  it("reads j' and m' typed with the modifier-letter apostrophe (U+02BC) as first person", () => {
    // Some keyboards type ʼ for the apostrophe; the lexicon scorer already folds it to '.
    expect(firstPersonRatio("Jʼai faim. Il mʼappelle. Il part.")).toBe(2 / 3);
  });

  it("does not read Me before a name (Maître Dupont) as first person", () => {
    expect(firstPersonRatio("Me Dupont, avocat, a plaidé.")).toBe(0);
    expect(firstPersonRatio("Il a vu Me Martin hier.")).toBe(0);
    expect(firstPersonRatio("Me voilà. Il me parle.")).toBe(1);
  });

  it("does not read Notre-Dame, Notre-Père or Notre-Seigneur, proper nouns, as first person", () => {
    // By hand: none of these sentences has a first-person marker but the last.
    expect(
      firstPersonRatio(
        "Notre-Dame de Paris a brûlé en 2019. Il récita le Notre-Père. Elle invoqua Notre-Seigneur. Notre maison est à Notre-Dame-des-Landes.",
      ),
    ).toBe(1 / 4);
  });

  it("matches whole words only", () => {
    expect(firstPersonRatio("Le jeu monte. Nouschka mange. Un mammouth. Mesurer mont.")).toBe(0);
  });

  it("finds markers in NFD text", () => {
    expect(firstPersonRatio("Nous avons écrit. Été chaud.".normalize("NFD"))).toBe(0.5);
  });

  it("is 0 for empty text", () => {
    expect(firstPersonRatio("")).toBe(0);
  });
});

describe("questionRate", () => {
  it("is the share of sentences ending with a question mark", () => {
    expect(questionRate("Tu viens ? Oui. Vraiment ?! « Pourquoi ? »")).toBe(3 / 4);
  });

  it("counts a quoted question followed by its incise as one sentence with one question", () => {
    expect(questionRate("« Tu viens ? » demanda-t-elle. Il ne répondit pas.")).toBe(1 / 2);
  });

  it("is 0 for empty text", () => {
    expect(questionRate("")).toBe(0);
  });
});

describe("meanSentenceLength", () => {
  it("averages words per sentence", () => {
    expect(meanSentenceLength("Un deux trois. Quatre cinq.")).toBe(2.5);
  });

  it("does not break at J. Dupont or p. ex.", () => {
    expect(meanSentenceLength("J. Dupont écrit, p. ex. des romans.")).toBe(7);
  });

  it("is 0 for empty text", () => {
    expect(meanSentenceLength("")).toBe(0);
  });
});

describe("a list, then a closing line (new user's report, finding 8)", () => {
  const text = "Voici le plan :\n- relire le contrat\n- appeler le client\nJe m'en occupe demain.";

  it("counts the unpunctuated last item and the closing line as two sentences", () => {
    expect(computeTextStats(text)).toMatchObject({ sentenceCount: 4, meanSentenceLength: 3.25 });
  });

  it("credits the closing line's « Je » to it, not to the last item", () => {
    expect(firstPersonRatio(text)).toBe(1 / 4);
  });
});

describe("computeTextStats", () => {
  it("computes the seed example's statistics", () => {
    expect(computeTextStats("Je pense que ceci illustre bien mon propos.")).toEqual({
      sentenceCount: 1,
      lineCount: 1,
      bulletLineCount: 0,
      bulletsRatio: 0,
      firstPersonRatio: 1,
      questionRate: 0,
      meanSentenceLength: 8,
      inBand: true,
    });
  });

  it("checks the band inclusively and with the caller's band", () => {
    expect(computeTextStats("Un deux trois quatre cinq.").inBand).toBe(true);
    expect(computeTextStats("Un deux trois quatre.").inBand).toBe(false);
    expect(computeTextStats("Un deux trois quatre.", { min: 1, max: 4 }).inBand).toBe(true);
  });

  it("counts 200,000 short sentences (1 MB) without overflowing the stack", () => {
    // Past some 120,000 sentences in one block, spreading them into push() threw a RangeError.
    const stats = computeTextStats("Oui. ".repeat(200_000));
    expect(stats).toMatchObject({ sentenceCount: 200_000, lineCount: 1, meanSentenceLength: 1 });
  });

  it("gives zeros and inBand false for empty text", () => {
    expect(computeTextStats("")).toEqual({
      sentenceCount: 0,
      lineCount: 0,
      bulletLineCount: 0,
      bulletsRatio: 0,
      firstPersonRatio: 0,
      questionRate: 0,
      meanSentenceLength: 0,
      inBand: false,
    });
  });
});

describe("a Markdown answer with headings", () => {
  it("counts each heading as a sentence, apart from the paragraph under it", () => {
    // By hand: "Rapport annuel" (2 words), "Nous progressons." (2), "Perspectives" (1),
    // "Nous visons 10 % de croissance." (5): 4 sentences, 10 words.
    const text =
      "# Rapport annuel\nNous progressons.\n\n## Perspectives\nNous visons 10 % de croissance.";
    expect(computeTextStats(text)).toMatchObject({
      sentenceCount: 4,
      meanSentenceLength: 2.5,
      firstPersonRatio: 0.5,
      bulletLineCount: 0,
    });
  });
});
