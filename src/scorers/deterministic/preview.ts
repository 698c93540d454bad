const PREVIEW_LIMIT = 60;

/** Quote a string for a rationale, cut to a readable length so reports stay small. */
export function preview(text: string): string {
  const quoted = JSON.stringify(text.length > PREVIEW_LIMIT ? text.slice(0, PREVIEW_LIMIT) : text);
  return text.length > PREVIEW_LIMIT ? `${quoted}… (${text.length} chars)` : quoted;
}
