// How many terminal columns text takes: a wide East Asian character or an emoji two, a combining
// mark none (it joins the character before it), others one. Counted per grapheme (what a reader
// sees as one character), so a family emoji or a flag is one wide character, not several.

const graphemeSegmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

// An emoji shown as a picture: one that is by default, or one asked to be by U+FE0F, or a keycap.
const EMOJI = /\p{Emoji_Presentation}|\p{Extended_Pictographic}\uFE0F|\u20E3/u;
// Marks and format characters that take no column of their own.
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]+$/u;

/** The graphemes of `text`, in order. */
export function graphemes(text: string): string[] {
  return Array.from(graphemeSegmenter.segment(text), (s) => s.segment);
}

/** The columns one grapheme takes in a terminal: 0, 1 or 2. */
export function graphemeWidth(grapheme: string): number {
  if (EMOJI.test(grapheme)) return 2;
  if (ZERO_WIDTH.test(grapheme)) return 0;
  return isWide(grapheme.codePointAt(0) ?? 0) ? 2 : 1;
}

/** The columns `text` takes in a terminal (no line breaks or controls in it). */
export function displayWidth(text: string): number {
  // ASCII only: one column a character, without segmenting.
  if (/^[\x20-\x7e]*$/.test(text)) return text.length;
  let columns = 0;
  for (const grapheme of graphemes(text)) columns += graphemeWidth(grapheme);
  return columns;
}

/** `text` followed by spaces to `columns` columns (none when it is as wide or wider). */
export function padToWidth(text: string, columns: number): string {
  return text + " ".repeat(Math.max(0, columns - displayWidth(text)));
}

// East Asian Wide and Fullwidth ranges (Unicode's EastAsianWidth.txt, W and F).
function isWide(code: number): boolean {
  return (
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0x303e) ||
    (code >= 0x3041 && code <= 0x33ff) ||
    (code >= 0x3400 && code <= 0x4dbf) ||
    (code >= 0x4e00 && code <= 0x9fff) ||
    (code >= 0xa000 && code <= 0xa4cf) ||
    (code >= 0xa960 && code <= 0xa97f) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe10 && code <= 0xfe19) ||
    (code >= 0xfe30 && code <= 0xfe6f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1b000 && code <= 0x1b2ff) ||
    (code >= 0x20000 && code <= 0x3fffd)
  );
}
