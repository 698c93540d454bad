// The options of `Store.queryAttempts`, checked before any backend reads them: a dashboard passes
// them through from URL parameters, where a misspelt key or value would otherwise be ignored (all
// attempts come back) or reach the database as SQL it cannot run.
import { NiceevalError } from "../errors.js";
import type { JudgmentState, Verdict } from "../eval/record.js";
import { type KnownKeys, unknownKeysIn } from "../known-keys.js";
import { closest } from "../suggest.js";
import type { AttemptQuery } from "./types.js";

const queryKeys = {
  evalId: true,
  verdict: true,
  judgmentState: true,
  judgmentLabel: true,
  text: true,
  sort: true,
  order: true,
  offset: true,
  limit: true,
} satisfies KnownKeys<AttemptQuery>;

/** The values each option takes (the viewer reads its URL parameters by them). */
export const QUERY_VERDICTS: readonly Verdict[] = ["passed", "failed", "skipped", "errored"];
export const QUERY_JUDGMENT_STATES: readonly JudgmentState[] = [
  "matched",
  "mismatched",
  "unavailable",
  "errored",
];
export const QUERY_SORTS: readonly NonNullable<AttemptQuery["sort"]>[] = [
  "case",
  "score",
  "elapsed",
  "verdict",
];
const ORDERS: readonly NonNullable<AttemptQuery["order"]>[] = ["asc", "desc"];

/** Largest page `queryAttempts` gives. */
export const MAX_PAGE = 1000;

/**
 * Largest offset: the largest whole number a JavaScript number holds exactly (a larger one, such as
 * 2^63, reaches SQLite as a real, which it refuses as an OFFSET: "datatype mismatch").
 */
export const MAX_OFFSET = Number.MAX_SAFE_INTEGER;

/** Throws STORE_QUERY naming the option, what it got and what it takes. */
export function checkAttemptQuery(query: AttemptQuery): void {
  if (typeof query !== "object" || query === null)
    throw bad(`the query must be an object of options, got ${shown(query)}`);
  const unknown = unknownKeysIn(query, queryKeys);
  if (unknown !== undefined) throw bad(unknown);
  const verdicts = query.verdict === undefined ? [] : [query.verdict].flat();
  for (const verdict of verdicts) oneOf("verdict", verdict, QUERY_VERDICTS);
  if (query.judgmentState !== undefined)
    oneOf("judgmentState", query.judgmentState, QUERY_JUDGMENT_STATES);
  if (query.sort !== undefined) oneOf("sort", query.sort, QUERY_SORTS);
  if (query.order !== undefined) oneOf("order", query.order, ORDERS);
  for (const key of ["evalId", "judgmentLabel", "text"] as const) {
    const value = query[key];
    if (value !== undefined && typeof value !== "string")
      throw bad(`${key} must be a string, got ${shown(value)}`);
  }
  if (
    query.offset !== undefined &&
    !(Number.isInteger(query.offset) && query.offset >= 0 && query.offset <= MAX_OFFSET)
  )
    throw bad(`offset must be a whole number from 0 to ${MAX_OFFSET}, got ${shown(query.offset)}`);
  // Above MAX_PAGE, a page holds MAX_PAGE (as the type says).
  if (query.limit !== undefined && !(Number.isInteger(query.limit) && query.limit >= 1))
    throw bad(
      `limit must be a whole number from 1 (at most ${MAX_PAGE} are given), got ${shown(query.limit)}`,
    );
}

function oneOf(key: string, value: unknown, allowed: readonly string[]): void {
  const wrong = notOneOf(key, value, allowed);
  if (wrong !== undefined) throw bad(wrong);
}

/**
 * What is wrong with `value` of option `key`, which takes one of `allowed`: what it takes, what it
 * got and the value it likely meant; undefined when it is one of them.
 */
export function notOneOf(
  key: string,
  value: unknown,
  allowed: readonly string[],
): string | undefined {
  if (typeof value === "string" && allowed.includes(value)) return undefined;
  const meant =
    typeof value === "string"
      ? (closest(value, allowed) ??
        allowed.find((a) => value.length >= 3 && a.startsWith(value.toLowerCase())))
      : undefined;
  return `${key} must be ${allowed
    .map((a) => `"${a}"`)
    .join(", ")
    .replace(
      /, ([^,]*)$/,
      " or $1",
    )}, got ${shown(value)}${meant ? ` (did you mean "${meant}"?)` : ""}`;
}

/** A value as the message shows it: a string quoted, so "4" is told from 4. */
export function shown(value: unknown): string {
  if (typeof value === "string")
    return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (typeof value === "number" || typeof value === "boolean" || value == null)
    return String(value);
  return Array.isArray(value) ? "an array" : `a ${typeof value}`;
}

const bad = (what: string) =>
  new NiceevalError("STORE_QUERY", `queryAttempts: ${what}. See AttemptQuery in niceeval/store.`);
