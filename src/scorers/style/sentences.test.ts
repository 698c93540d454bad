import { describe, expect, it } from "vitest";
import { countWords, isBulletLine, isQuestion, splitSentences } from "./sentences.js";

describe("splitSentences", () => {
  it("splits on periods, question and exclamation marks followed by whitespace", () => {
    expect(splitSentences("Il pleut. Tu viens ? Quelle joie ! Fin")).toEqual([
      "Il pleut.",
      "Tu viens ?",
      "Quelle joie !",
      "Fin",
    ]);
  });

  it("does not end a sentence at a title or an isolated capital initial (J. Dupont)", () => {
    expect(splitSentences("M. Martin et Mme Durand voient J. Dupont. Dr. Roux arrive.")).toEqual([
      "M. Martin et Mme Durand voient J. Dupont.",
      "Dr. Roux arrive.",
    ]);
  });

  it("does not end a sentence at p. ex., par ex., cf. or etc.", () => {
    expect(
      splitSentences(
        "Des fruits, p. ex. des pommes, etc. et des poires, cf. la liste. Par ex. ceci. Suite.",
      ),
    ).toEqual([
      "Des fruits, p. ex. des pommes, etc. et des poires, cf. la liste.",
      "Par ex. ceci.",
      "Suite.",
    ]);
  });

  it("keeps av. J.-C. and apr. J.-C. inside a sentence, and ends one at J.-C. before a capital", () => {
    expect(
      splitSentences(
        "Jules César naît en 100 av. J.-C. à Rome. Il meurt en 44 av. J.-C. Auguste lui succède. Clovis est baptisé vers 496 apr. J.-C. dans la cathédrale de Reims.",
      ),
    ).toEqual([
      "Jules César naît en 100 av. J.-C. à Rome.",
      "Il meurt en 44 av. J.-C.",
      "Auguste lui succède.",
      "Clovis est baptisé vers 496 apr. J.-C. dans la cathédrale de Reims.",
    ]);
  });

  it("does not end a sentence at c.-à-d.", () => {
    expect(
      splitSentences(
        "Il est parti à l'aube, c.-à-d. avant que le coq ne chante. Personne ne l'a vu. C.-à-d. qu'il a fui.",
      ),
    ).toEqual([
      "Il est parti à l'aube, c.-à-d. avant que le coq ne chante.",
      "Personne ne l'a vu.",
      "C.-à-d. qu'il a fui.",
    ]);
  });

  it("reads pages, articles, references and abbreviated months the same way", () => {
    expect(
      splitSentences(
        "Voir p. 12. Elle est née le 3 janv. 1990 à Paris. Réf. : art. 5 du code. Il en a sept. Puis il part.",
      ),
    ).toEqual([
      "Voir p. 12.",
      "Elle est née le 3 janv. 1990 à Paris.",
      "Réf. : art. 5 du code.",
      "Il en a sept.",
      "Puis il part.",
    ]);
  });

  it("reads env., vol. and chap. as abbreviations before a number, a numeral or a lower-case word", () => {
    expect(
      splitSentences(
        "Le village compte env. 300 habitants. Voir le vol. III, chap. 2 et le chap. suivant. On en trouve 40 env. Le reste a disparu.",
      ),
    ).toEqual([
      "Le village compte env. 300 habitants.",
      "Voir le vol. III, chap. 2 et le chap. suivant.",
      "On en trouve 40 env.",
      "Le reste a disparu.",
    ]);
  });

  it("ends a sentence at the noun vol, or at etc., before a capitalised word", () => {
    expect(
      splitSentences(
        "Ce n'était pas un accident, c'était un vol. Il a porté plainte. J'ai acheté des pommes, des poires, etc. Mon frère aussi.",
      ),
    ).toEqual([
      "Ce n'était pas un accident, c'était un vol.",
      "Il a porté plainte.",
      "J'ai acheté des pommes, des poires, etc.",
      "Mon frère aussi.",
    ]);
  });

  it("keeps a quoted question or exclamation and its incise in one sentence", () => {
    const text =
      "« Tu viens ? » demanda-t-elle. « Quelle chance ! » s'écria Paul. « Non. » Il sortit sans un mot.";
    expect(splitSentences(text)).toEqual([
      "« Tu viens ? » demanda-t-elle.",
      "« Quelle chance ! » s'écria Paul.",
      "« Non. »",
      "Il sortit sans un mot.",
    ]);
    expect(splitSentences(text).map(isQuestion)).toEqual([true, false, false, false]);
  });

  it("keeps a bare question and its inverted dialogue tag together", () => {
    expect(
      splitSentences("— Que faire ? se demanda-t-il. — Partir ! répondit-elle. — Où ? Nulle part."),
    ).toEqual([
      "— Que faire ? se demanda-t-il.",
      "— Partir ! répondit-elle.",
      "— Où ?",
      "Nulle part.",
    ]);
  });

  it("keeps decimals inside a sentence and splits after a number that ends one", () => {
    expect(splitSentences("Il a 1.5 million de lecteurs. Elle a 3 ans. Voilà.")).toEqual([
      "Il a 1.5 million de lecteurs.",
      "Elle a 3 ans.",
      "Voilà.",
    ]);
  });

  it("treats ellipses and ?! runs as one end, and keeps closing guillemets with their sentence", () => {
    expect(splitSentences("Il dit « Bonjour. » Puis rien… Vraiment ?! Oui.")).toEqual([
      "Il dit « Bonjour. »",
      "Puis rien…",
      "Vraiment ?!",
      "Oui.",
    ]);
  });

  it("makes each bullet item and each paragraph its own block, dropping markers", () => {
    expect(
      splitSentences("Intro sans point\n\n- premier point\n- second point\n1. troisième"),
    ).toEqual(["Intro sans point", "premier point", "second point", "troisième"]);
  });

  it("ends a list item at its line break, so an unpunctuated last item keeps to itself", () => {
    const plan = [
      "Voici mon plan :",
      "relire le contrat",
      "appeler le client",
      "Je m'en occupe demain.",
    ];
    for (const [one, two] of [
      ["- ", "- "],
      ["* ", "• "],
      ["1. ", "2) "],
      ["a. ", "b. "],
      ["I. ", "II. "],
    ]) {
      const text = `Voici mon plan :\n${one}relire le contrat\n${two}appeler le client\nJe m'en occupe demain.`;
      expect(splitSentences(text)).toEqual(plan);
    }
    // An indented line, or one that starts in lower case (an item wrapped by hand), continues the
    // item; a blank line ends it as before.
    expect(
      splitSentences(
        "Points à vérifier :\n- nous devons relire le contrat avant\nla signature de vendredi.\n- appeler le client.",
      ),
    ).toEqual([
      "Points à vérifier :",
      "nous devons relire le contrat avant la signature de vendredi.",
      "appeler le client.",
    ]);
    expect(
      splitSentences("- relire le contrat et\n  vérifier les clauses\nJe m'en occupe."),
    ).toEqual(["relire le contrat et vérifier les clauses", "Je m'en occupe."]);
    expect(splitSentences("- un point\n\nUne phrase qui\ncontinue.")).toEqual([
      "un point",
      "Une phrase qui continue.",
    ]);
  });

  it("joins soft-wrapped lines of one paragraph", () => {
    expect(splitSentences("Une phrase qui\ncontinue ici. Et une autre.")).toEqual([
      "Une phrase qui continue ici.",
      "Et une autre.",
    ]);
  });

  it("returns no sentence for empty, blank or marker-only text", () => {
    expect(splitSentences("")).toEqual([]);
    expect(splitSentences("  \n\t ")).toEqual([]);
    expect(splitSentences("-\n* \n...")).toEqual([]);
  });

  it("normalises NFD input to NFC", () => {
    const nfd = "J'ai écrit. C'est fini.".normalize("NFD");
    expect(splitSentences(nfd)).toEqual(["J'ai écrit.", "C'est fini."]);
  });
});

describe("isQuestion", () => {
  it("is a sentence ending with ?, or holding a quoted question before its incise", () => {
    expect(isQuestion("Tu viens ?")).toBe(true);
    expect(isQuestion("Vraiment ?! »")).toBe(true);
    expect(isQuestion("« Tu viens ? » demanda-t-elle.")).toBe(true);
    expect(isQuestion("Il pleut.")).toBe(false);
    expect(isQuestion("Voir https://exemple.fr/?q=1 pour la suite.")).toBe(false);
  });
});

describe("splitSentences: French periods, ellipses and list items", () => {
  it("does not end a sentence at a lone period before a lower-case word", () => {
    expect(splitSentences("Il y a env. 300 hab. dans le village. C'est petit.")).toEqual([
      "Il y a env. 300 hab. dans le village.",
      "C'est petit.",
    ]);
    expect(splitSentences("Le XIXe s. fut riche. Le XXe aussi.")).toEqual([
      "Le XIXe s. fut riche.",
      "Le XXe aussi.",
    ]);
  });

  it("does not end a sentence at an ellipsis before a lower-case word", () => {
    for (const dots of ["...", "…"]) {
      expect(splitSentences(`Il hésita${dots} puis partit. Fin.`)).toEqual([
        `Il hésita${dots} puis partit.`,
        "Fin.",
      ]);
    }
    expect(splitSentences("Bon... Alors ? Oui !")).toEqual(["Bon...", "Alors ?", "Oui !"]);
  });

  it("reads lettered and Roman markers at line starts as items, not sentence ends", () => {
    expect(splitSentences("a. premier\nb. second")).toEqual(["premier", "second"]);
    expect(splitSentences("a) premier point\nb) second point")).toEqual([
      "premier point",
      "second point",
    ]);
    expect(splitSentences("I. Introduction\nII. Développement\nIV. Fin")).toEqual([
      "Introduction",
      "Développement",
      "Fin",
    ]);
    // A title or an initial at a line start is not an item marker.
    expect(splitSentences("M. Dupont arrive.\nC. Durand part.")).toEqual([
      "M. Dupont arrive.",
      "C. Durand part.",
    ]);
    expect(isBulletLine("a. premier")).toBe(false);
  });
});

describe("isBulletLine", () => {
  it("accepts -, *, • and numbered markers followed by whitespace", () => {
    for (const line of ["- a", "* a", "• a", "1. a", "  12) a", "-"])
      expect(isBulletLine(line)).toBe(true);
  });

  it("treats 1.5 million and -42 degrés as prose", () => {
    for (const line of ["1.5 million", "-42 degrés", "—Dialogue", "*gras*", "2024 fut"]) {
      expect(isBulletLine(line)).toBe(false);
    }
  });
});

describe("countWords", () => {
  it("counts whitespace tokens that hold a letter or digit", () => {
    expect(countWords("J'ai vu – 1.5 million ; d'arbres !")).toBe(5);
  });

  it("counts a number in groups of three digits as one word, whatever the space", () => {
    for (const space of [" ", "\u00a0", "\u202f"]) {
      expect(countWords(`Je l'ai acheté 10${space}000 euros.`)).toBe(5);
      expect(countWords(`Ils sont 1${space}250${space}000.`)).toBe(3);
    }
    // Not groups of three: two numbers.
    expect(countWords("En 2020 300 personnes.")).toBe(4);
    expect(countWords("Les 12 3456 cas.")).toBe(4);
  });
});

describe("splitSentences: ! and ? inside a sentence (a French copy editor's counts)", () => {
  it("does not end a sentence at an interjection's ! or ? before a lower-case word", () => {
    // By hand: the lower-case word after the mark continues the sentence (Ah ! que c'est beau.).
    expect(
      splitSentences("Ah ! que c'est beau. Hélas ! il était trop tard. Quoi ?! tu pars déjà ?"),
    ).toEqual(["Ah ! que c'est beau.", "Hélas ! il était trop tard.", "Quoi ?! tu pars déjà ?"]);
    expect(splitSentences("Oh ! la belle bleue ! s'écria l'enfant. Tous rirent.")).toEqual([
      "Oh ! la belle bleue ! s'écria l'enfant.",
      "Tous rirent.",
    ]);
  });

  it("does not end a sentence at a ? or ! closing a parenthesis or a bracket", () => {
    expect(
      splitSentences(
        "Elle demanda (mais le savait-elle ?) pourquoi. Il hurla [sic !] de joie. Il se tut.",
      ),
    ).toEqual([
      "Elle demanda (mais le savait-elle ?) pourquoi.",
      "Il hurla [sic !] de joie.",
      "Il se tut.",
    ]);
  });
});

describe("splitSentences: an omission marker, […] or (…)", () => {
  it("never ends a sentence, whatever follows it", () => {
    for (const marker of ["[…]", "[...]", "(…)", "(...)"]) {
      expect(
        splitSentences(`Comme l'écrit Hugo : « ${marker} Le monde est vaste. » Il a raison.`),
      ).toEqual([`Comme l'écrit Hugo : « ${marker} Le monde est vaste. »`, "Il a raison."]);
      expect(splitSentences(`Il cite le texte ${marker} Puis il conclut.`)).toEqual([
        `Il cite le texte ${marker} Puis il conclut.`,
      ]);
    }
    // Its own period still ends the sentence.
    expect(splitSentences("Il cite le texte […]. Puis il conclut.")).toEqual([
      "Il cite le texte […].",
      "Puis il conclut.",
    ]);
  });
});

describe("splitSentences: legal and academic references", () => {
  it("does not end a sentence at al. (alinéa, et al.) or t. (tome) before a number, a numeral or a parenthesis", () => {
    expect(
      splitSentences(
        "Selon l'art. 5, al. 2 du code, le délai est de trois mois. Martin et al. (2015) le contestent. Voir Dupont, t. 2, p. 45, et le t. III. Il conclut.",
      ),
    ).toEqual([
      "Selon l'art. 5, al. 2 du code, le délai est de trois mois.",
      "Martin et al. (2015) le contestent.",
      "Voir Dupont, t. 2, p. 45, et le t. III.",
      "Il conclut.",
    ]);
    // Before a capitalised word, et al. and t. end the sentence.
    expect(splitSentences("Voir Martin et al. Leur thèse tient.")).toEqual([
      "Voir Martin et al.",
      "Leur thèse tient.",
    ]);
  });

  it("does not end a sentence inside a court decision's reference", () => {
    expect(
      splitSentences(
        "Cass. Ass. plén., 29 juin 2001. Cass. civ. 1re, 12 mai 2010, no 09-12.345. Cass. crim. 5 mai 2010. Cass. soc. 3 juin 2015. Cass. com. 8 mars 2011. Le pourvoi est rejeté.",
      ),
    ).toEqual([
      "Cass. Ass. plén., 29 juin 2001.",
      "Cass. civ. 1re, 12 mai 2010, no 09-12.345.",
      "Cass. crim. 5 mai 2010.",
      "Cass. soc. 3 juin 2015.",
      "Cass. com. 8 mars 2011.",
      "Le pourvoi est rejeté.",
    ]);
  });

  it("does not end a sentence at a period before a colon, semicolon or comma", () => {
    // A sentence never starts with « : »: `Ex. : le chien` is one sentence, as is `Ex. 2 : le chat`.
    expect(
      splitSentences(
        "Ex. : le chien aboie. Ex. 2 : le chat dort. Voir Dupont, op. cit. ; Martin, ibid.",
      ),
    ).toEqual([
      "Ex. : le chien aboie.",
      "Ex. 2 : le chat dort.",
      "Voir Dupont, op. cit. ; Martin, ibid.",
    ]);
  });

  it("does not end a sentence at coll. (a book series)", () => {
    expect(
      splitSentences("Paris, PUF, coll. « Que sais-je ? », 2010. Le livre est court."),
    ).toEqual(["Paris, PUF, coll. « Que sais-je ? », 2010.", "Le livre est court."]);
  });
});

describe("splitSentences: an ellipsis typed as spaced periods", () => {
  it("reads . . . as one ellipsis, like ... and …", () => {
    expect(splitSentences("Il hésita . . . puis partit. Elle attendit. . . Rien.")).toEqual([
      "Il hésita . . . puis partit.",
      "Elle attendit. . .",
      "Rien.",
    ]);
  });
});

describe("splitSentences: Markdown headings", () => {
  it("makes a heading line a sentence of its own, its # marker dropped", () => {
    // A title has no final period: joined to the next line, it made one long sentence.
    expect(
      splitSentences(
        "# Rapport annuel\nLe chiffre d'affaires progresse. Nous sommes satisfaits.\n## Perspectives\nNous visons 10 %.",
      ),
    ).toEqual([
      "Rapport annuel",
      "Le chiffre d'affaires progresse.",
      "Nous sommes satisfaits.",
      "Perspectives",
      "Nous visons 10 %.",
    ]);
    // Not a heading: no space after #, or more than six.
    expect(splitSentences("#motclé\nsuite.")).toEqual(["#motclé suite."]);
  });

  it("drops a numbered heading's number as a list item's, not leaving it a sentence of its own", () => {
    // Hand-counted: four sentences, two titles and two lines of prose; "1." is no sentence.
    expect(
      splitSentences(
        "## 1. Contexte\nLe marché recule.\n## II. Méthode\nNous avons mesuré.\n### 2.3 Résultats",
      ),
    ).toEqual(["Contexte", "Le marché recule.", "Méthode", "Nous avons mesuré.", "2.3 Résultats"]);
  });
});

describe("splitSentences: more titles and abbreviations", () => {
  it("does not end a sentence at the titles Prof., Pr., Dr., Dre., Mgr. or Vve.", () => {
    expect(splitSentences("Le Prof. Martin est là. Il parle.")).toEqual([
      "Le Prof. Martin est là.",
      "Il parle.",
    ]);
    expect(
      splitSentences(
        "Les Profs. Roux et Petit, le Pr. Lenoir, la Dre. Gagnon, Mgr. Dubois et la Vve. Clicquot sont venus. Ils restent.",
      ),
    ).toHaveLength(2);
    // A title is case-sensitive: the lower-case noun ends a sentence.
    expect(splitSentences("J'ai vu le prof. Il était là.")).toEqual([
      "J'ai vu le prof.",
      "Il était là.",
    ]);
  });

  it("does not end a sentence at bd. in an address or at boul., and ends one at the noun bd (bande dessinée)", () => {
    expect(splitSentences("Rendez-vous au 12 bd. Haussmann demain. Je serai là.")).toEqual([
      "Rendez-vous au 12 bd. Haussmann demain.",
      "Je serai là.",
    ]);
    expect(splitSentences("Il habite 5 bis Bd. Voltaire. Elle aussi.")).toHaveLength(2);
    expect(splitSentences("Elle longe le boul. Saint-Laurent à pied. Puis rentre.")).toEqual([
      "Elle longe le boul. Saint-Laurent à pied.",
      "Puis rentre.",
    ]);
    expect(splitSentences("J'ai lu une bd. Elle était drôle.")).toEqual([
      "J'ai lu une bd.",
      "Elle était drôle.",
    ]);
  });

  it("does not end a sentence at ca. (circa) or tél. before a number, and ends one before a capitalised word", () => {
    expect(splitSentences("Il naquit vers ca. 1500 à Lyon. Il mourut jeune.")).toEqual([
      "Il naquit vers ca. 1500 à Lyon.",
      "Il mourut jeune.",
    ]);
    expect(splitSentences("Appelez le tél. 01 23 45 67 89 demain. Merci.")).toHaveLength(2);
    expect(splitSentences("Je ne sais pas ce que c'est ca. Tant pis.")).toEqual([
      "Je ne sais pas ce que c'est ca.",
      "Tant pis.",
    ]);
  });
});
