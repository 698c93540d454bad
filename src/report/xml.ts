import { visibleBidi } from "../visible.js";

// ANSI colour and cursor sequences, which reasons sometimes carry from a terminal.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching ESC is the point
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;
// Control characters XML 1.0 cannot carry (C0 but tab, LF and CR), and the C1 controls, which it
// can but which no reader wants: dropped.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;
// The other characters it cannot carry (lone surrogates, U+FFFE, U+FFFF): shown as U+FFFD, so a
// name made of them (a case id) still names something.
const NOT_XML = /[^\t\n\r\u0020-\u007e\u00a0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

/**
 * Text XML 1.0 can hold, for a reader: ANSI sequences and control characters dropped, other
 * non-characters replaced, bidirectional controls shown (⟨U+202E⟩), as the console and the viewer
 * show them, so that they reorder nothing. The Markdown reports and GitHub's annotations use it too.
 */
export function xmlSafe(text: string): string {
  return visibleBidi(text.replace(ANSI, "").replace(CONTROLS, "").replace(NOT_XML, "\ufffd"));
}

/** Escape text for an element's content. */
export function xmlText(text: string): string {
  return xmlSafe(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Escape text for a double-quoted attribute; line breaks and tabs survive as references. */
export function xmlAttr(text: string): string {
  return xmlText(text)
    .replace(/"/g, "&quot;")
    .replace(/\n/g, "&#10;")
    .replace(/\r/g, "&#13;")
    .replace(/\t/g, "&#9;");
}

/** ` a="1" b="x"` from the defined entries of `attributes`, in order. */
export function xmlAttrs(attributes: Record<string, string | number | undefined>): string {
  let text = "";
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== undefined) text += ` ${name}="${xmlAttr(String(value))}"`;
  }
  return text;
}
