/**
 * The case id of the errored attempt that stands for an eval whose cases could not be read (its
 * dataset threw, or hung): no case of a dataset may take it.
 */
export const DATASET_ERROR_ID = "(cases)";

// C0 and C1 controls, and the line and paragraph separators: an id is shown and stored on one line.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** The first control character of an id, as `U+000A`; undefined when it has none. */
export function controlCharacter(id: string): string | undefined {
  const found = CONTROL.exec(id);
  return found
    ? `U+${found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`
    : undefined;
}

// Half of a character: a high surrogate without its low one, or a low one without its high one.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The first lone surrogate of an id (text cut inside an emoji), as `U+D83D`; undefined when it has
 * none. UTF-8 has no bytes for it: SQLite keeps other ones, so the stored id is not the id.
 */
export function loneSurrogate(id: string): string | undefined {
  const found = LONE_SURROGATE.exec(id);
  return found ? `U+${found[0].charCodeAt(0).toString(16).toUpperCase()}` : undefined;
}

/** Why an id is refused for its lone surrogate, after "holds". */
export const loneSurrogateWords = (code: string): string =>
  `a lone surrogate (${code}), half of a character (text cut inside an emoji?), which a store cannot keep as it is; use whole characters`;

/** Numbered ids kept as bits, at most (512 KB of them); larger numbers are kept as strings. */
const MAX_BIT = 1 << 22;

/**
 * A set of case ids, cheap for the common numbered ones. Ids made of one prefix and a number
 * (`case-17`, `q3`: the number written as String(n) writes it, below 2^22) are kept as bits of
 * that number, so a dataset of such ids costs a bit each and no string stays reachable; any
 * other id (another prefix, a leading zero, no number) is kept in a plain Set. The prefix is the
 * first numbered id's.
 */
export class IdSet {
  private readonly strings = new Set<string>();
  private prefix: string | undefined;
  private bits = new Uint8Array(0);

  /** Add `id`; false when it was in the set already. */
  add(id: string): boolean {
    const n = this.numberOf(id, true);
    if (n < 0) {
      const size = this.strings.size;
      this.strings.add(id);
      return this.strings.size !== size;
    }
    if (n >= this.bits.length * 8) {
      let size = Math.max(64, this.bits.length);
      while (n >= size * 8) size *= 2;
      const grown = new Uint8Array(size);
      grown.set(this.bits);
      this.bits = grown;
    }
    const mask = 1 << (n & 7);
    const byte = this.bits[n >>> 3]!;
    if ((byte & mask) !== 0) return false;
    this.bits[n >>> 3] = byte | mask;
    return true;
  }

  has(id: string): boolean {
    const n = this.numberOf(id, false);
    if (n < 0) return this.strings.has(id);
    return n < this.bits.length * 8 && (this.bits[n >>> 3]! & (1 << (n & 7))) !== 0;
  }

  /** The number of an id kept as a bit, or -1. `adopt`: the first numbered id sets the prefix. */
  private numberOf(id: string, adopt: boolean): number {
    // The id's last run of digits: at most 7 of them, written without a leading zero.
    let start = id.length;
    while (start > 0) {
      const code = id.charCodeAt(start - 1);
      if (code < 48 || code > 57) break;
      start--;
    }
    const digits = id.length - start;
    if (digits === 0 || digits > 7) return -1;
    if (digits > 1 && id.charCodeAt(start) === 48) return -1;
    if (this.prefix === undefined) {
      if (!adopt) return -1;
      this.prefix = id.slice(0, start);
    } else if (start !== this.prefix.length || !id.startsWith(this.prefix)) return -1;
    let n = 0;
    for (let i = start; i < id.length; i++) n = n * 10 + (id.charCodeAt(i) - 48);
    return n < MAX_BIT ? n : -1;
  }
}

/** One attempt's key as a string (an eval id, a case id and a trial cannot hold a NUL). */
export const attemptKey = (evalId: string, caseId: string, trial: number): string =>
  `${evalId}\u0000${caseId}\u0000${trial}`;
