// The options of `Store.listRuns`, checked before either backend reads them (the viewer passes
// them from URL parameters, code from its own settings: a misspelt key would otherwise list every
// run, a misspelt status none), and the status filter, which is the status runs are shown with.
import { NiceevalError } from "../errors.js";
import { type KnownKeys, unknownKeysIn } from "../known-keys.js";
import { notOneOf, shown } from "./attempt-query.js";
import type { RunListQuery, RunStatus, StoredRun } from "./types.js";
import { effectiveStatus } from "./writer.js";

const listKeys = {
  limit: true,
  evalId: true,
  branch: true,
  tags: true,
  status: true,
} satisfies KnownKeys<RunListQuery>;

/** Every status a run can have (the type's values, for checks of what is given). */
export const RUN_STATUSES: readonly RunStatus[] = ["running", "finished", "interrupted", "crashed"];

/** Throws STORE_QUERY naming the option, what it got and what it takes. */
export function checkRunListQuery(query: RunListQuery): void {
  if (typeof query !== "object" || query === null)
    throw bad(`the query must be an object of options, got ${shown(query)}`);
  const unknown = unknownKeysIn(query, listKeys);
  if (unknown !== undefined) throw bad(unknown);
  if (query.status !== undefined) {
    const wrong = notOneOf("status", query.status, RUN_STATUSES);
    if (wrong !== undefined) throw bad(wrong);
  }
  for (const key of ["evalId", "branch"] as const) {
    const value = query[key];
    if (value !== undefined && typeof value !== "string")
      throw bad(`${key} must be a string, got ${shown(value)}`);
  }
  if (query.limit !== undefined && !(Number.isInteger(query.limit) && query.limit >= 1))
    throw bad(`limit must be a whole number from 1, got ${shown(query.limit)}`);
  checkTags(query.tags);
}

function checkTags(tags: unknown): void {
  if (tags === undefined) return;
  if (typeof tags !== "object" || tags === null || Array.isArray(tags))
    throw bad(`tags must be an object of strings ({ key: "value" }), got ${shown(tags)}`);
  for (const [key, value] of Object.entries(tags))
    if (typeof value !== "string")
      throw bad(`tag ${JSON.stringify(key)} must be a string, got ${shown(value)}`);
}

/**
 * The statuses stored for runs shown as `status`: a run left `running` by a writer that is gone
 * is shown as crashed (`effectiveStatus`), so its stored status says too little on its own.
 */
export const storedStatuses = (status: RunStatus): RunStatus[] =>
  status === "crashed" ? ["running", "crashed"] : [status];

/** Whether runs read for `status` must be checked one by one (their writer) before the limit. */
export const checkedByWriter = (status: RunStatus | undefined): boolean =>
  status === "running" || status === "crashed";

/**
 * The runs, read newest first with {@link storedStatuses}, that are shown as `status`, at most
 * `limit`; all of them without a status filter.
 */
export function shownAs(
  runs: StoredRun[],
  status: RunStatus | undefined,
  limit: number | undefined,
): StoredRun[] {
  if (!checkedByWriter(status)) return runs;
  const kept = runs.filter((run) => effectiveStatus(run) === status);
  return limit === undefined ? kept : kept.slice(0, limit);
}

const bad = (what: string) =>
  new NiceevalError("STORE_QUERY", `listRuns: ${what}. See RunListQuery in niceeval/store.`);
