// French sentence and line conventions shared by the text-stats helpers.

/** A bullet marker at the start of a line: -, *, • or `1.` / `1)`, followed by whitespace. */
const BULLET_MARKER = /^\s*(?:[-*•]|\d+[.)])(?=\s|$)/u;
/**
 * A lettered or Roman list marker at the start of a line (`a. premier`, `b) second`,
 * `II. Développement`): an item, not a sentence end. Roman numerals of I, V and X only, so that
 * `M. Dupont`, `C. Durand` or `L. 121-1` at a line start stay a title, an initial, an article.
 * Not a bullet line: bulletsRatio counts only seed 002's markers.
 */
const ITEM_MARKER = /^\s*(?:\p{Ll}|[IVX]+)[.)]\s+(?=\S)/u;
/** A Markdown heading's marker (`# Titre`, `## Perspectives`): its line is a block of its own. */
const HEADING = /^ {0,3}#{1,6}(?:\s+|$)/u;
const TERMINAL = /[.!?…]/u;
const CLOSERS = new Set(["»", '"', "”", "’", "'", ")", "]"]);
/**
 * Titles whose period never ends a sentence (case-sensitive: `m.` is not `M.`, and `le prof.`
 * ends one where `le Prof. Martin` does not): `Vve` is veuve, `Dre` a woman doctor.
 */
const TITLES = new Set([
  "M",
  "MM",
  "Mme",
  "Mmes",
  "Mlle",
  "Mlles",
  "Dr",
  "Dre",
  "Drs",
  "Pr",
  "Prof",
  "Profs",
  "Mgr",
  "Vve",
  "St",
  "Ste",
]);
/**
 * Abbreviations whose period never ends a sentence: `av. J.-C.`, `cf. Dupont`, `Cass. Ass.
 * plén.` (Cour de cassation), `coll. « Que sais-je ? »` (a book series), `boul. Saint-Laurent`.
 */
const ABBREVIATIONS = new Set(["cf", "fig", "vs", "av", "ap", "apr", "cass", "coll", "boul"]);
/**
 * Abbreviations that may close a sentence: their period ends one only before a capitalised
 * word that is not a Roman numeral (`vol. III`, `env. 300`, `p. 12`, `3 janv. 1990` and
 * `réf. :` go on; `etc. Puis` ends). Months as French abbreviates them, pages, articles,
 * alinéas and `et al.`, tomes, a court's chamber (`Cass. civ. 1re`, `crim.`, `soc.`, `com.`),
 * `ca. 1500` (circa: `c'est ca. Tant pis` ends) and `tél. 01 23 45 67 89`.
 */
const FINAL_ABBREVIATIONS = new Set([
  "etc",
  "ca",
  "tél",
  "al",
  "t",
  "civ",
  "crim",
  "soc",
  "com",
  "env",
  "vol",
  "chap",
  "p",
  "pp",
  "art",
  "réf",
  "éd",
  "janv",
  "févr",
  "avr",
  "juil",
  "sept",
  "oct",
  "nov",
  "déc",
]);
const WORD_BEFORE = /[\p{L}\p{M}]+$/u;
/** `J.-C.` (Jésus-Christ) and `c.-à-d.` (c'est-à-dire), just before their last period. */
const JESUS_CHRIST = /(?:^|[^\p{L}])J\.\s?-C$/u;
const C_EST_A_DIRE = /(?:^|[^\p{L}])c\.-à-d$/iu;
const ROMAN = /^[IVXLCDM]+(?![\p{L}])/u;
/** A `?` that ends a clause: at the end, or before whitespace, possibly after closers. */
const QUESTION = /\?[!?.…]*(?:\s?[»"”’')\]])*(?=\s|$)/u;

/** Whether a line is a bullet line (`1.5 million` and `-42 degrés` are prose: no whitespace after the marker). */
export function isBulletLine(line: string): boolean {
  return BULLET_MARKER.test(line);
}

/** Lines that hold something other than whitespace. */
export function nonBlankLines(text: string): string[] {
  return text
    .normalize("NFC")
    .split(/\r\n|\r|\n/u)
    .filter((line) => line.trim() !== "");
}

/** A number written in groups of three digits (`10 000`, with a space, NBSP or U+202F). */
const GROUPED_NUMBER = /(?<!\d)\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?!\d)/gu;

/**
 * Words of a sentence: whitespace-separated tokens holding at least one letter or digit; a
 * number in groups of three digits (`10 000 euros`) is one word.
 */
export function countWords(sentence: string): number {
  const joined = sentence.replace(GROUPED_NUMBER, (number) => number.replace(/\s/gu, ""));
  return joined.split(/\s+/u).filter((token) => /[\p{L}\p{N}]/u.test(token)).length;
}

/**
 * Split French text into sentences. A Markdown heading line (`## Titre`, `## 1. Titre`, its
 * number dropped) is a block of its own;
 * a blank line, a bullet line or a line starting with a
 * lettered or Roman item marker (`a.`, `b)`, `II.`) starts a new block (markers are dropped),
 * and the line break that ends such a list item ends its block, so an unpunctuated last item
 * and the prose line after it are two sentences (an indented line continues the item);
 * within a block a run of `.`, `!`, `?` or `…` followed by whitespace or the end closes a
 * sentence, except after a title (M., Mme, Dr., Prof.…), an abbreviation (cf., p. ex., c.-à-d.,
 * av. J.-C., `bd.` after a street number) or an isolated capital initial (J. Dupont), and except
 * before a lower-case word
 * (`env. 300 hab. dans`, `Il hésita... puis`, `Ah ! que c'est beau`, `(le savait-elle ?)
 * pourquoi`): `« Tu viens ? » demanda-t-elle.` is one sentence. An omission, `[…]` or `(…)`,
 * never ends one. `etc.`,
 * `env.`, `vol.`, `chap.`, `p.`, `art.`, `réf.`, `ca.`, `tél.`, `bd.` elsewhere, abbreviated
 * months (`janv.`…) and `J.-C.` end a sentence only before a capitalised word.
 * Text is NFC-normalised; fragments without a letter or digit are dropped.
 * @example
 * splitSentences("M. Dupont arrive. Il parle.") // → ["M. Dupont arrive.", "Il parle."]
 */
export function splitSentences(text: string): string[] {
  const sentences: string[] = [];
  // Each block appends to one array: spreading a block's sentences into push() overflows the
  // stack past some 120,000 of them.
  for (const block of blocks(text.normalize("NFC"))) splitBlock(block, sentences);
  return sentences;
}

function blocks(text: string): string[] {
  const out: string[] = [];
  let current: string[] = [];
  // Whether `current` is a list item, which its line break ends unless the next line continues
  // it: indented, or starting with a lower-case letter (an item wrapped by hand).
  let inItem = false;
  const flush = () => {
    if (current.length > 0) out.push(current.join(" "));
    current = [];
  };
  for (const line of text.split(/\r\n|\r|\n/u)) {
    const marker = listMarker(line);
    if (line.trim() === "") {
      flush();
      inItem = false;
    } else if (HEADING.test(line)) {
      // A heading, a title without a final period, is one block, not joined to what follows;
      // a number it starts with (`## 1. Contexte`, `## II. Méthode`) is dropped as an item's.
      flush();
      const title = line.replace(HEADING, "");
      const number = listMarker(title);
      out.push(number ? title.replace(number, "") : title);
      inItem = false;
    } else if (marker !== undefined) {
      flush();
      current.push(line.replace(marker, ""));
      inItem = true;
    } else if (inItem && !/^(?:\s|\p{Ll})/u.test(line)) {
      flush();
      current.push(line);
      inItem = false;
    } else {
      current.push(line);
    }
  }
  flush();
  return out;
}

/** The marker a list item's line starts with (a bullet, `a.`, `II.`), if it is one. */
function listMarker(line: string): RegExp | undefined {
  if (isBulletLine(line)) return BULLET_MARKER;
  return ITEM_MARKER.test(line) ? ITEM_MARKER : undefined;
}

/**
 * How far around a period the guards look, in characters: every word they test (a title, an
 * abbreviation, a dialogue tag) is far shorter. Looking at a window, not at the text before or
 * after, keeps a split linear in the text's length.
 */
const WINDOW = 64;

/** Appends the sentences of one block to `out`. */
function splitBlock(raw: string, out: string[]): void {
  const block = raw.replace(/\s+/gu, " ").trim();
  let start = 0;
  let i = 0;
  while (i < block.length) {
    if (!TERMINAL.test(block[i] ?? "")) {
      i += 1;
      continue;
    }
    // An ellipsis typed as spaced periods, `. . .`, is one run.
    let runEnd = block.startsWith(". . .", i) ? i + 5 : i;
    while (runEnd < block.length && TERMINAL.test(block[runEnd] ?? "")) runEnd += 1;
    const end = consumeClosers(block, runEnd);
    if (closesSentence(block, i, runEnd, end)) {
      pushSentence(out, block.slice(start, end));
      start = end;
    }
    i = Math.max(end, i + 1);
  }
  pushSentence(out, block.slice(start));
}

/** Whether the run of terminals at `i`..`runEnd`, then closers up to `end`, ends a sentence. */
function closesSentence(block: string, i: number, runEnd: number, end: number): boolean {
  if (end < block.length && block[end] !== " ") return false;
  if (isOmission(block, i, runEnd)) return false;
  // Only a lone period can be an abbreviation's; "?", "!" and "..." close unless an incise follows.
  const lonePeriod = block[i] === "." && runEnd === i + 1;
  const next = block.slice(end + 1, end + 1 + WINDOW);
  // No sentence starts with a colon, a semicolon or a comma: `Ex. : le chien`, `op. cit. ; Martin`.
  if (/^[,;:]/u.test(next)) return false;
  if (lonePeriod && isGuarded(block, i, next)) return false;
  return !isIncise(next);
}

/** `[…]` or `(…)` (also with three periods): words left out of a quotation, never a sentence end. */
function isOmission(block: string, i: number, runEnd: number): boolean {
  const pair = `${block[i - 1] ?? ""}${block[runEnd] ?? ""}`;
  return (pair === "[]" || pair === "()") && /^(?:…|\.\.\.)$/u.test(block.slice(i, runEnd));
}

// A French closing guillemet may sit after a space: « Bonjour. » still closes the quote.
function consumeClosers(block: string, from: number): number {
  let end = from;
  for (;;) {
    let probe = end;
    if (block[probe] === " " && block[probe + 1] === "»") probe += 1;
    if (probe < block.length && CLOSERS.has(block[probe] ?? "")) end = probe + 1;
    else return end;
  }
}

// A lower-case word after the marks continues the sentence, as French typography writes it:
// after a lone period (an abbreviation: `env. 300 hab. dans`, `s. fut`), an ellipsis (`Il
// hésita... puis partit.`), a closing quote or parenthesis (`« Tu viens ? » demanda-t-elle`,
// `(le savait-elle ?) pourquoi`), a dialogue tag (`Que faire ? se demanda-t-il`) or an
// interjection (`Ah ! que c'est beau`, `Hélas ! il était trop tard`).
function isIncise(next: string): boolean {
  return /^\p{Ll}/u.test(next);
}

// Whether the next word is a capitalised one that starts a new sentence.
function startsSentence(next: string): boolean {
  const word = next.replace(/^[«"“([]\s?/u, "");
  return /^\p{Lu}/u.test(word) && !ROMAN.test(word);
}

function isGuarded(block: string, periodIndex: number, next: string): boolean {
  const before = block.slice(Math.max(0, periodIndex - WINDOW), periodIndex);
  if (C_EST_A_DIRE.test(before)) return true;
  if (JESUS_CHRIST.test(before)) return !startsSentence(next);
  const word = WORD_BEFORE.exec(before)?.[0];
  if (word === undefined) return false;
  if (/^\p{Lu}$/u.test(word) || TITLES.has(word)) return true;
  const lower = word.toLowerCase();
  if (ABBREVIATIONS.has(lower)) return true;
  if (FINAL_ABBREVIATIONS.has(lower)) return !startsSentence(next);
  // "p. ex." and "par ex.": neither period closes the sentence.
  if (lower === "p" && /^\.\s*ex\./iu.test(block.slice(periodIndex, periodIndex + 8))) return true;
  // "12 bd. Haussmann": a boulevard after a street number; "une bd. Elle" (bande dessinée) ends.
  if (lower === "bd")
    return (
      /\d(?:\s+(?:bis|ter))?\s+$/iu.test(before.slice(0, -word.length)) || !startsSentence(next)
    );
  // "Ex. 2 : le chat": an example's number; "mon ex. Elle" ends.
  if (lower === "ex")
    return (
      /(?:^|[^\p{L}])(?:p\.|par)\s*$/iu.test(before.slice(0, -word.length)) || !startsSentence(next)
    );
  return false;
}

/**
 * Whether a sentence asks a question: a `?` ends it or one of its quoted clauses
 * (`« Tu viens ? » demanda-t-elle.` asks one).
 * @example
 * isQuestion("« Tu viens ? » demanda-t-elle.") // → true
 */
export function isQuestion(sentence: string): boolean {
  return QUESTION.test(sentence);
}

function pushSentence(out: string[], fragment: string): void {
  const sentence = fragment.trim();
  if (/[\p{L}\p{N}]/u.test(sentence)) out.push(sentence);
}
