import type { AttemptQuery } from "../types.js";
import { JUDGMENT_STATE_CODE, VERDICT_CODE } from "./schema.js";

/** Lookups a filter needs from the store. */
export interface FilterLookups {
  ev(evalId: string): number | undefined;
  kindIds(label: string): number[];
  /** Ids of the run's distinct lower-cased reasons matching a LIKE pattern (ESCAPE '\\'). */
  reasonIds(pattern: string): number[];
}

/** A WHERE clause over `attempts a`, or undefined when the query can match nothing. */
export function attemptFilter(
  rid: number,
  query: AttemptQuery,
  lookups: FilterLookups,
): { where: string; params: unknown[]; scansText: boolean } | undefined {
  const where = ["a.rid = ?"];
  const params: unknown[] = [rid];
  if (query.evalId !== undefined) {
    const ev = lookups.ev(query.evalId);
    if (ev === undefined) return undefined;
    where.push("a.ev = ?");
    params.push(ev);
  }
  if (query.verdict !== undefined) {
    const verdicts: readonly string[] =
      typeof query.verdict === "string" ? [query.verdict] : query.verdict;
    const codes = verdicts.map((v) => VERDICT_CODE[v as keyof typeof VERDICT_CODE]);
    if (codes.length === 0) return undefined;
    where.push(`a.verdict IN (${codes.map(() => "?").join(", ")})`);
    params.push(...codes);
  }
  if (query.judgmentState !== undefined) {
    where.push("(a.judgment_states & ?) != 0");
    params.push(1 << JUDGMENT_STATE_CODE[query.judgmentState]);
  }
  if (query.judgmentLabel !== undefined) {
    const ids = lookups.kindIds(query.judgmentLabel);
    if (ids.length === 0) return undefined;
    where.push(`(${ids.map(() => "instr(a.kinds, ?) > 0").join(" OR ")})`);
    params.push(...ids.map((id) => `,${id},`));
    if (query.judgmentState !== undefined) {
      // Both: this label's own judgment is in that state (the cheap tests above narrow first).
      where.push(labelInState(ids.length));
      params.push(...ids, JUDGMENT_STATE_CODE[query.judgmentState]);
    }
  }
  if (query.text !== undefined && query.text !== "") {
    const text = textFilter(rid, query.text, lookups);
    where.push(text.where);
    params.push(...text.params);
  }
  return { where: where.join(" AND "), params, scansText: !!query.text };
}

/**
 * A judgment of one of the label's kinds in a state, read from the judgments cell (a JSON list
 * of `{k, s}`, `s` absent when matched) or its shared copy (`shared_cells`, when it holds an id).
 */
const labelInState = (kinds: number) =>
  `EXISTS (SELECT 1 FROM json_each(CASE WHEN substr(a.judgments, 1, 1) = '[' THEN a.judgments
     ELSE (SELECT c.text FROM shared_cells c WHERE c.id = CAST(a.judgments AS INTEGER)) END) j
   WHERE json_extract(j.value, '$.k') IN (${Array(kinds).fill("?").join(", ")})
     AND coalesce(json_extract(j.value, '$.s'), 0) = ?)`;

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Matched reasons up to which a query lists their ids; beyond, a JS function tests each row. */
const LISTED_REASONS = 32;

/**
 * Case-insensitive substring match over case id, error message, input, output and judgment
 * reasons, within the run's narrow `attempt_text` rows: a LIKE over the lower-cased case id, error
 * and value text (LIKE folds only ASCII, so both sides are lower-cased by JS); the ids of the
 * run's distinct reasons that match; and for an input or output too large to be inline, its
 * blob's JSON, where the needle is also tried JSON-escaped (quotes, backslashes).
 */
function textFilter(
  rid: number,
  text: string,
  lookups: FilterLookups,
): { where: string; params: unknown[] } {
  const lower = likePattern(text.toLowerCase());
  const params: unknown[] = [rid, lower];
  const parts = ["t.search LIKE ? ESCAPE '\\'"];
  const reasons = lookups.reasonIds(lower);
  if (reasons.length > LISTED_REASONS) {
    parts.push("niceeval_has_any(t.reasons, ?)");
    params.push(JSON.stringify(reasons));
  } else if (reasons.length > 0) {
    parts.push(
      `(t.reasons IS NOT NULL AND (${reasons.map(() => "instr(t.reasons, ?) > 0").join(" OR ")}))`,
    );
    params.push(...reasons.map((id) => `,${id},`));
  }
  const escaped = JSON.stringify(text).slice(1, -1);
  const ascii = /^\p{ASCII}*$/u.test(text);
  const blobMatch = (escaped === text ? [text] : [text, escaped]).map((form) => {
    params.push(ascii ? likePattern(form) : form.toLowerCase());
    return ascii ? "b.json LIKE ? ESCAPE '\\'" : "niceeval_contains(b.json, ?)";
  });
  parts.push(
    `(t.blobs IS NOT NULL AND EXISTS (SELECT 1 FROM blobs b WHERE b.id IN (SELECT value FROM json_each('[' || t.blobs || ']')) AND (${blobMatch.join(" OR ")})))`,
  );
  return {
    where: `a.id IN (SELECT t.id FROM attempt_text t WHERE t.rid = ? AND (${parts.join(" OR ")}))`,
    params,
  };
}

/** ORDER BY of a query: the chosen key, then case order so pages are stable. */
export function attemptOrder(query: AttemptQuery): string {
  const direction = query.order === "desc" ? "DESC" : "ASC";
  const caseOrder = (d: string) => `a.ev ${d}, a.case_index ${d}, a.trial ${d}, a.id ${d}`;
  switch (query.sort ?? "case") {
    case "case":
      return caseOrder(direction);
    case "score":
      // Unscored attempts (unavailable, or nothing to earn) have no ratio and come last.
      return `CASE WHEN a.score_state != 2 AND a.max > 0 THEN a.earned / a.max END ${direction} NULLS LAST, ${caseOrder("ASC")}`;
    case "elapsed":
      return `a.elapsed_ms ${direction}, ${caseOrder("ASC")}`;
    case "verdict":
      return `a.verdict ${direction}, ${caseOrder("ASC")}`;
  }
}
