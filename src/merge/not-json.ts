// What a run export's line that is not JSON is, in words: a compressed or zipped export (a CI
// artifact as downloaded) is to be unpacked first; the parser's own message quotes the bytes,
// which may act on a terminal, so it is shown harmlessly.
import { visible } from "../visible.js";

/** Read as UTF-8, gzip's magic bytes 1f 8b are U+001F then a replacement character. */
const GZIP = "\u001f\ufffd";
/** A zip archive's local file header. */
const ZIP = "PK\u0003\u0004";

/** Where the text is: its line, the file as named to the user, the format an export has. */
export interface LinePlace {
  line: number;
  shown: string;
  format: string;
}

/**
 * Why a line of an export is not JSON, and what to do, as the end of a sentence that starts
 * "line N" (`error` is what JSON.parse threw).
 */
export function notJsonProblem(text: string, at: LinePlace, error: unknown): string {
  const { line, shown } = at;
  if (line === 1 && text.startsWith(GZIP))
    return `is gzip-compressed, not JSON: decompress it first (\`gunzip -k ${shown}\`) and name the .ndjson it gives`;
  if (line === 1 && text.startsWith(ZIP))
    return `is a zip archive, not JSON (a CI artifact downloaded whole?): unzip it first (\`unzip ${shown}\`) and name the .ndjson inside`;
  if (line === 1)
    return `is not JSON, so the file is no niceeval run export (format ${at.format}); write one with \`niceeval export <run> --ndjson <file>\``;
  return `is not JSON (${visible(error instanceof Error ? error.message : String(error))})`;
}
