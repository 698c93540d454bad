import { JUDGMENT_STATE_CODE, VERDICT_CODE } from "../sqlite/schema.js";
import type { AttemptQuery } from "../types.js";

/** Numbered parameters: `add(value)` returns its placeholder (`$3`). */
export class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** Lookups a filter needs from the store. */
export interface FilterLookups {
  ev(evalId: string): number | undefined;
  kindIds(label: string): Promise<number[]>;
}

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * A WHERE clause over `niceeval.attempts a` with the same meaning as the SQLite backend's, or
 * undefined when the query can match nothing.
 */
export async function attemptFilter(
  rid: number,
  query: AttemptQuery,
  lookups: FilterLookups,
  params: Params,
): Promise<string | undefined> {
  const where = [`a.rid = ${params.add(rid)}`];
  if (query.evalId !== undefined) {
    const ev = lookups.ev(query.evalId);
    if (ev === undefined) return undefined;
    where.push(`a.ev = ${params.add(ev)}`);
  }
  if (query.verdict !== undefined) {
    const verdicts: readonly string[] =
      typeof query.verdict === "string" ? [query.verdict] : query.verdict;
    const codes = verdicts.map((v) => VERDICT_CODE[v as keyof typeof VERDICT_CODE]);
    if (codes.length === 0) return undefined;
    where.push(`a.verdict = ANY(${params.add(codes)}::smallint[])`);
  }
  if (query.judgmentState !== undefined)
    where.push(
      `(a.judgment_states & ${params.add(1 << JUDGMENT_STATE_CODE[query.judgmentState])}) != 0`,
    );
  if (query.judgmentLabel !== undefined) {
    const ids = await lookups.kindIds(query.judgmentLabel);
    if (ids.length === 0) return undefined;
    where.push(
      `(${ids.map((id) => `strpos(a.kinds, ${params.add(`,${id},`)}) > 0`).join(" OR ")})`,
    );
    // Both: this label's own judgment is in that state, as in the SQLite backend.
    if (query.judgmentState !== undefined)
      where.push(`EXISTS (SELECT 1 FROM json_array_elements(a.judgments::json) j
        WHERE (j->>'k')::int = ANY(${params.add(ids)}::int[])
          AND coalesce((j->>'s')::int, 0) = ${params.add(JUDGMENT_STATE_CODE[query.judgmentState])})`);
  }
  if (query.text !== undefined && query.text !== "") where.push(textFilter(query.text, params));
  return where.join(" AND ");
}

/**
 * Case-insensitive substring match: a LIKE over the lower-cased `search` column (both sides
 * lower-cased by JS, so folding does not depend on the server's locale), and for an input or
 * output too large to be inline, its blob's JSON, where the needle is also tried JSON-escaped.
 */
function textFilter(text: string, params: Params): string {
  const escaped = JSON.stringify(text).slice(1, -1);
  const forms = escaped === text ? [text] : [text, escaped];
  const ascii = /^\p{ASCII}*$/u.test(text);
  const blobMatch = forms.map((form) =>
    ascii
      ? `b.json ILIKE ${params.add(likePattern(form))}`
      : `lower(b.json) LIKE ${params.add(likePattern(form.toLowerCase()))}`,
  );
  return `(a.search LIKE ${params.add(likePattern(text.toLowerCase()))}
    OR (a.search_blobs IS NOT NULL AND EXISTS (SELECT 1 FROM niceeval.blobs b
      WHERE b.id = ANY(string_to_array(a.search_blobs, ',')::bigint[]) AND (${blobMatch.join(" OR ")}))))`;
}
