import { visibleBidi } from "../visible.js";

/**
 * An eval or case id as a report shows it: as it is, or quoted as JSON when it is empty, blank or
 * starts or ends with whitespace, which a terminal leaves invisible and Markdown trims away (a
 * table cell, `**…**`), so a case whose id is "   " is still named; its bidirectional controls
 * shown (⟨U+202E⟩), so that "x\u202Eabc" is not read as "xcba".
 */
export function shownId(id: string): string {
  return visibleBidi(id === "" || /^\s|\s$/.test(id) ? JSON.stringify(id) : id);
}
