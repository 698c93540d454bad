// Whole-word search of every lexicon term in one pass over the text (Aho-Corasick), in time
// linear in the text and the lexicon. It finds what one case-insensitive Unicode regex per term,
// `(?<![\p{L}\p{M}\p{N}])term(?![\p{L}\p{M}\p{N}])` with inner whitespace as `\s+`, finds: a regex
// per term cost the text's length once per term, and a term of 100,000 characters overflowed
// the regex compiler's stack.

/** A letter, mark or digit, with the flags the per-term regexes had. */
const WORD_CHAR = /[\p{L}\p{M}\p{N}]/iu;
const BLANK_CHAR = /\s/u;

// A character's kind, in the two low bits of its class.
const WORD = 1;
const OTHER = 2;
const BLANK = 3;

// Symbols: the case key of a character, or one of these three, beyond Unicode. A word may start
// (OPEN) at the text's start and after any character that is not a letter, mark or digit; it may
// end (CLOSE) before one and at the text's end. Writing both into the text and into each term
// makes every occurrence the automaton finds a whole-word one.
const SPACE = 0x110000;
const OPEN = 0x110001;
const CLOSE = 0x110002;

/** Classes of the Basic Multilingual Plane, filled as met (0: not met yet). */
const bmpClasses = new Int32Array(0x10000);
/** Classes of other code points, as met; cleared when full so that it stays small. */
const astralClasses = new Map<number, number>();
const ASTRAL_CACHE = 4096;

/**
 * Simple case foldings that no case mapping reaches (Unicode 15.1: ΐ and ΰ in two code points
 * each, and the two ligatures ﬅ ﬆ), offered only where the regex engine agrees.
 */
const UNMAPPED_FOLDS = new Map([
  [0x1fd3, 0x0390],
  [0x1fe3, 0x03b0],
  [0xfb05, 0xfb06],
]);

/**
 * The code point that stands for `cp`'s case-insensitive class, as a `u`-flag regex with `i`
 * compares characters (Unicode simple case folding): its upper case lowered, else its lower case,
 * when that is one code point the regex takes for it (dotless ı is not i), else itself.
 */
function caseKey(cp: number): number {
  const ch = String.fromCodePoint(cp);
  const unmapped = UNMAPPED_FOLDS.get(cp);
  const candidates = [ch.toUpperCase().toLowerCase(), ch.toLowerCase()];
  if (unmapped !== undefined) candidates.unshift(String.fromCodePoint(unmapped));
  for (const candidate of candidates) {
    const key = candidate.codePointAt(0) ?? cp;
    if (candidate.length !== String.fromCodePoint(key).length) continue;
    if (key === cp) return cp;
    if (new RegExp(`^\\u{${cp.toString(16)}}$`, "iu").test(candidate)) return key;
  }
  return cp;
}

function classify(cp: number): number {
  const ch = String.fromCodePoint(cp);
  if (BLANK_CHAR.test(ch)) return (SPACE << 2) | BLANK;
  return (caseKey(cp) << 2) | (WORD_CHAR.test(ch) ? WORD : OTHER);
}

function classOf(cp: number): number {
  if (cp < 0x10000) {
    const known = bmpClasses[cp] ?? 0;
    if (known !== 0) return known;
    const found = classify(cp);
    bmpClasses[cp] = found;
    return found;
  }
  const known = astralClasses.get(cp);
  if (known !== undefined) return known;
  if (astralClasses.size >= ASTRAL_CACHE) astralClasses.clear();
  const found = classify(cp);
  astralClasses.set(cp, found);
  return found;
}

const APOSTROPHE = 0x27;
/**
 * French elided words: an apostrophe after one of them, between letters, is a word boundary
 * (`l'été` holds `été`); any other apostrophe between letters is inside a word (`aujourd'hui`
 * does not hold `hui`, nor `presqu'île` `île`), as extractLexicon reads words. Case-insensitive
 * as the rest of the search is.
 */
const ELIDED = /^(?:c|d|j|l|m|n|s|t|qu|jusqu|lorsqu|puisqu|quoiqu)$/iu;
/** No run of letters before an apostrophe (NO_RUN), or one that cannot be elided (JOINED). */
const NO_RUN = -1;
const JOINED = -2;

/** The code point at `i`, a surrogate pair read whole. */
function codePointAt(text: string, i: number): number {
  const cp = text.charCodeAt(i);
  if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < text.length) {
    const low = text.charCodeAt(i + 1);
    if (low >= 0xdc00 && low <= 0xdfff) return (cp - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
  }
  return cp;
}

/**
 * Feeds the symbols of `text` to `take`, stopping when it returns false: each run of whitespace
 * is one SPACE, each character its case key, with OPEN and CLOSE where a word may start and end
 * (not around an apostrophe inside a word: ELIDED). The caller folds ’ and ʼ to '.
 */
function readSymbols(text: string, take: (symbol: number) => boolean): void {
  if (!take(OPEN)) return;
  let blank = false;
  // Where the letters since the word's last boundary start, or NO_RUN, or JOINED.
  let run = NO_RUN;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const cp = codePointAt(text, i);
    const at = i;
    if (cp > 0xffff) i++;
    const cls = classOf(cp);
    const kind = cls & 3;
    if (kind === BLANK && blank) continue;
    blank = kind === BLANK;
    if (kind === WORD) {
      if (run === NO_RUN) run = at;
      if (!take(cls >> 2)) return;
    } else if (
      cp === APOSTROPHE &&
      run !== NO_RUN &&
      wordAt(text, i + 1) &&
      !elided(text, run, at)
    ) {
      run = JOINED;
      if (!take(cls >> 2)) return;
    } else {
      run = NO_RUN;
      if (!take(CLOSE) || !take(cls >> 2) || !take(OPEN)) return;
    }
  }
  take(CLOSE);
}

/** Whether the letters from `run` to the apostrophe are an elided word (`l`, `qu`, `jusqu`). */
function elided(text: string, run: number, apostrophe: number): boolean {
  return run !== JOINED && apostrophe - run <= 6 && ELIDED.test(text.slice(run, apostrophe));
}

/** Whether a letter, mark or digit starts at `i`. */
function wordAt(text: string, i: number): boolean {
  return i < text.length && (classOf(codePointAt(text, i)) & 3) === WORD;
}

const ROOT = 0;
const NONE = -1;

/** A trie of the terms' symbols with its failure links: most nodes have one child, kept inline. */
class Automaton {
  readonly #firstSymbol: number[] = [NONE];
  readonly #firstChild: number[] = [NONE];
  readonly #moreChildren = new Map<number, Map<number, number>>();
  readonly #fail: number[] = [ROOT];
  /** The first term ending at a node, and the next term ending at the same node. */
  readonly #termAt: number[] = [NONE];
  readonly #nextTerm: number[] = [];

  constructor(terms: readonly string[]) {
    for (const [index, term] of terms.entries()) this.#insert(term, index);
    this.#link();
  }

  #child(node: number, symbol: number): number {
    if (this.#firstSymbol[node] === symbol) return this.#firstChild[node] ?? NONE;
    return this.#moreChildren.get(node)?.get(symbol) ?? NONE;
  }

  #addChild(node: number, symbol: number): number {
    const created = this.#fail.length;
    this.#firstSymbol.push(NONE);
    this.#firstChild.push(NONE);
    this.#fail.push(ROOT);
    this.#termAt.push(NONE);
    if (this.#firstSymbol[node] === NONE) {
      this.#firstSymbol[node] = symbol;
      this.#firstChild[node] = created;
    } else {
      const more = this.#moreChildren.get(node) ?? new Map<number, number>();
      more.set(symbol, created);
      this.#moreChildren.set(node, more);
    }
    return created;
  }

  #insert(term: string, index: number): void {
    let node = ROOT;
    readSymbols(term, (symbol) => {
      const next = this.#child(node, symbol);
      node = next === NONE ? this.#addChild(node, symbol) : next;
      return true;
    });
    this.#nextTerm[index] = this.#termAt[node] ?? NONE;
    this.#termAt[node] = index;
  }

  #forEachChild(node: number, visit: (symbol: number, child: number) => void): void {
    const first = this.#firstSymbol[node] ?? NONE;
    if (first !== NONE) visit(first, this.#firstChild[node] ?? NONE);
    for (const [symbol, child] of this.#moreChildren.get(node) ?? []) visit(symbol, child);
  }

  /** Failure links, breadth first: each node's longest proper suffix that is also in the trie. */
  #link(): void {
    const queue = [ROOT];
    for (let head = 0; head < queue.length; head++) {
      const node = queue[head] ?? ROOT;
      this.#forEachChild(node, (symbol, child) => {
        queue.push(child);
        if (node === ROOT) return;
        let fallback = this.#fail[node] ?? ROOT;
        while (fallback !== ROOT && this.#child(fallback, symbol) === NONE)
          fallback = this.#fail[fallback] ?? ROOT;
        const target = this.#child(fallback, symbol);
        this.#fail[child] = target === NONE ? ROOT : target;
      });
    }
  }

  /** Which terms occur in `text`, by their index. */
  search(text: string): boolean[] {
    const found = new Array<boolean>(this.#nextTerm.length).fill(false);
    let left = found.length;
    // A node whose suffixes' terms are all found: reached again, it is not walked again, so the
    // reporting costs at most one visit per node over the whole text.
    const drained = new Uint8Array(this.#fail.length);
    let state = ROOT;
    readSymbols(text, (symbol) => {
      while (state !== ROOT && this.#child(state, symbol) === NONE)
        state = this.#fail[state] ?? ROOT;
      const next = this.#child(state, symbol);
      state = next === NONE ? ROOT : next;
      for (
        let node = state;
        node !== ROOT && drained[node] === 0;
        node = this.#fail[node] ?? ROOT
      ) {
        drained[node] = 1;
        for (let t = this.#termAt[node] ?? NONE; t !== NONE; t = this.#nextTerm[t] ?? NONE) {
          found[t] = true;
          left--;
        }
      }
      return left > 0;
    });
    return found;
  }
}

/**
 * Which of `terms` occur in `text` as whole words: not preceded or followed by a letter, mark or
 * digit (ASCII `\b` would split "écrire"), nor by an apostrophe between letters that does not
 * follow an elided word (`aujourd'hui` is one word, `l'été` two), case-insensitive as Unicode
 * simple case folding has it,
 * a run of whitespace inside a term matching any run. Text and terms are compared as given: the
 * caller normalises them.
 * @example
 * findWholeWords("Il faut élire.", ["lire", "élire"]) // → [false, true]
 */
export function findWholeWords(text: string, terms: readonly string[]): boolean[] {
  if (terms.length === 0) return [];
  return new Automaton(terms).search(text);
}
