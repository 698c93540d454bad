/**
 * An eval or case id as a report shows it: as it is, or quoted as JSON when it is empty, blank or
 * starts or ends with whitespace, which a terminal leaves invisible and Markdown trims away (a
 * table cell, `**…**`), so a case whose id is "   " is still named.
 */
export function shownId(id: string): string {
  return id === "" || /^\s|\s$/.test(id) ? JSON.stringify(id) : id;
}
