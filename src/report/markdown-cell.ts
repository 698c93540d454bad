import { xmlSafe } from "./xml.js";

/**
 * Text safe inside Markdown (a table cell, a list item): one line, control characters stripped, markdown and
 * HTML punctuation escaped, and what GFM would make a link of (`https://…`, `www.…`, `a@b.c`)
 * left as text, as the viewer makes no link of run data.
 */
export function cell(text: string): string {
  return xmlSafe(text)
    .replace(/\s*[\r\n]+\s*/g, " ")
    .replace(/[\\`*_[\]<>|~&#@]/g, (c) => `\\${c}`)
    .replace(/:(?=\/\/)/g, "\\:")
    .replace(/(?<=\bwww)\./gi, "\\.");
}
