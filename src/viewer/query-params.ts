// The JSON API's URL parameters read as the store's queries. A parameter the API does not take,
// given twice, or with a value it does not take is VIEWER_QUERY (answered 400), naming the
// parameter, what it got and what it takes, as the store's STORE_QUERY does for code: never a
// filter dropped without a word and every attempt or run listed in its place.
import { NiceevalError } from "../errors.js";
import { joinWords } from "../plural.js";
import {
  MAX_OFFSET,
  MAX_PAGE,
  notOneOf,
  QUERY_JUDGMENT_STATES,
  QUERY_SORTS,
  QUERY_VERDICTS,
  shown,
} from "../store/attempt-query.js";
import { RUN_STATUSES } from "../store/run-list-query.js";
import type { AttemptQuery, RunListQuery } from "../store/types.js";
import { closest } from "../suggest.js";

/** Rows of the cases table a page holds without `limit`. */
const DEFAULT_PAGE = 200;
/** Runs listed without `limit`, and at most. */
const DEFAULT_RUNS = 200;
export const MAX_RUNS = 10_000;

const ATTEMPT_PARAMS = [
  "evalId",
  "verdict",
  "state",
  "label",
  "q",
  "sort",
  "order",
  "offset",
  "limit",
];
const RUN_PARAMS = ["evalId", "branch", "tag", "status", "limit"];
const ORDERS: readonly NonNullable<AttemptQuery["order"]>[] = ["asc", "desc"];
/** Taken by every request (the session's, read before any API). */
const SESSION_PARAMS = new Set(["token"]);

/**
 * The store query of the cases table's parameters (`verdict=failed,errored`, `state`, `label`,
 * `q`, `sort`, `order`, `offset`, `limit`), read for the request at `where` (its path).
 * @example
 * attemptQueryOf(new URLSearchParams("verdict=faild"), "/api/runs/latest/attempts");
 * // VIEWER_QUERY: /api/runs/latest/attempts: verdict must be "passed", … got "faild" (did you mean "failed"?)
 */
export function attemptQueryOf(params: URLSearchParams, where: string): AttemptQuery {
  const read = new Params(params, where, ATTEMPT_PARAMS);
  const query: AttemptQuery = {};
  const evalId = read.text("evalId");
  if (evalId !== undefined) query.evalId = evalId;
  const verdicts = read.text("verdict")?.split(",");
  if (verdicts) query.verdict = verdicts.map((v) => read.oneOf("verdict", v, QUERY_VERDICTS));
  const state = read.text("state");
  if (state !== undefined) query.judgmentState = read.oneOf("state", state, QUERY_JUDGMENT_STATES);
  const label = read.text("label");
  if (label !== undefined) query.judgmentLabel = label;
  const q = read.text("q");
  if (q !== undefined) query.text = q;
  const sort = read.text("sort");
  if (sort !== undefined) query.sort = read.oneOf("sort", sort, QUERY_SORTS);
  const order = read.text("order");
  if (order !== undefined) query.order = read.oneOf("order", order, ORDERS);
  const offset = read.whole("offset", 0, MAX_OFFSET);
  if (offset !== undefined) query.offset = offset;
  const limit = read.whole("limit", 1, Number.POSITIVE_INFINITY, `at most ${MAX_PAGE} are given`);
  query.limit = Math.min(limit ?? DEFAULT_PAGE, MAX_PAGE);
  return query;
}

/**
 * The store query of the runs list's parameters (`evalId`, `branch`, `tag=key=value`, repeated
 * for more tags, `status`, `limit`), read for the request at `where`.
 */
export function runListQueryOf(params: URLSearchParams, where: string): RunListQuery {
  const read = new Params(params, where, RUN_PARAMS, ["tag"]);
  const limit = read.whole("limit", 1, Number.POSITIVE_INFINITY, `at most ${MAX_RUNS} are listed`);
  const query: RunListQuery = { limit: Math.min(limit ?? DEFAULT_RUNS, MAX_RUNS) };
  const evalId = read.text("evalId");
  if (evalId !== undefined) query.evalId = evalId;
  const branch = read.text("branch");
  if (branch !== undefined) query.branch = branch;
  const status = read.text("status");
  if (status !== undefined) query.status = read.oneOf("status", status, RUN_STATUSES);
  const tags: Record<string, string> = {};
  for (const tag of params.getAll("tag").filter((t) => t !== "")) {
    const at = tag.indexOf("=");
    if (at <= 0)
      throw read.bad(
        `tag must be key=value, as tag=model=gpt-4.1 (repeat tag for more), got ${shown(tag)}`,
      );
    tags[tag.slice(0, at)] = tag.slice(at + 1);
  }
  if (Object.keys(tags).length > 0) query.tags = tags;
  return query;
}

/** A request's parameters, refused where they are not ones `known` names, once each. */
class Params {
  constructor(
    private readonly params: URLSearchParams,
    private readonly where: string,
    known: readonly string[],
    repeatable: readonly string[] = [],
  ) {
    for (const name of new Set(params.keys())) {
      if (SESSION_PARAMS.has(name)) continue;
      if (!known.includes(name)) {
        const meant =
          closest(name, known) ?? known.find((k) => k.toLowerCase() === name.toLowerCase());
        throw this.bad(
          `unknown parameter ${shown(name)}${meant ? ` (did you mean "${meant}"?)` : ""}; it takes ${joinWords(known)}`,
        );
      }
      const given = params.getAll(name).length;
      if (given > 1 && !repeatable.includes(name))
        throw this.bad(`${name} is given ${given} times; give it once`);
    }
  }

  /** The parameter's value; undefined when it is absent or empty (no filter). */
  text(name: string): string | undefined {
    const value = this.params.get(name);
    return value === null || value === "" ? undefined : value;
  }

  /** `value` of parameter `name` when it is one of `allowed`. */
  oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
    const wrong = notOneOf(name, value, allowed);
    if (wrong !== undefined) throw this.bad(wrong);
    return value as T;
  }

  /** The whole number parameter `name` gives, from `from` to `to`; undefined when absent. */
  whole(name: string, from: number, to: number, note?: string): number | undefined {
    const value = this.text(name);
    if (value === undefined) return undefined;
    const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (n >= from && n <= to) return n;
    const range = to === Number.POSITIVE_INFINITY ? `from ${from}` : `from ${from} to ${to}`;
    throw this.bad(
      `${name} must be a whole number ${range}${note ? ` (${note})` : ""}, got ${shown(value)}`,
    );
  }

  bad(what: string): NiceevalError {
    return new NiceevalError("VIEWER_QUERY", `${this.where}: ${what}`);
  }
}
