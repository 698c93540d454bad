// Characters that act on how text is displayed instead of being displayed: control characters
// (but tab and line feed), which drive a terminal, the line and paragraph separators, which some
// terminals and editors break a line at, and the bidirectional embeddings, overrides, isolates
// and marks, which reorder the text around them ("Trojan Source"). Text a person reads
// (the console, the text reports, the viewer) shows them as symbols; the JSON keeps them exact.

const BIDI_CHARS = String.raw`\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069`;
// C0 controls but tab and line feed, DEL and the C1 controls, the separators, and the bidirectional ones.
const ACTING_CHARS = String.raw`\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029${BIDI_CHARS}`;
const ACTING = new RegExp(`[${ACTING_CHARS}]`);
const ACTING_ALL = new RegExp(`[${ACTING_CHARS}]`, "g");
const BIDI = new RegExp(`[${BIDI_CHARS}]`);
const BIDI_ALL = new RegExp(`[${BIDI_CHARS}]`, "g");

/** Whether `text` holds a character {@link visible} would show: one regex test, no copy. */
export const hasActing = (text: string): boolean => ACTING.test(text);

/**
 * `text` with its control characters shown as their Unicode pictures (␛ for ESC, ␡ for DEL,
 * U+FFFD for a C1 control) and its line separators and bidirectional controls as their code
 * points (⟨U+2028⟩, ⟨U+202E⟩).
 */
export function visible(text: string): string {
  return ACTING.test(text) ? text.replace(ACTING_ALL, visibleChar) : text;
}

/** `text` with only its bidirectional controls shown (⟨U+202E⟩), for text whose controls are dealt with otherwise. */
export function visibleBidi(text: string): string {
  return BIDI.test(text) ? text.replace(BIDI_ALL, visibleChar) : text;
}

function visibleChar(c: string): string {
  const code = c.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return "␡";
  if (code <= 0x9f) return "\ufffd";
  return `⟨U+${code.toString(16).toUpperCase().padStart(4, "0")}⟩`;
}
