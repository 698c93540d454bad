import { xmlSafe } from "./xml.js";

/**
 * Text safe inside Markdown (a table cell, a list item): one line, control characters stripped, markdown and
 * HTML punctuation escaped.
 */
export function cell(text: string): string {
  return xmlSafe(text)
    .replace(/\s*[\r\n]+\s*/g, " ")
    .replace(/[\\`*_[\]<>|~&#]/g, (c) => `\\${c}`);
}
