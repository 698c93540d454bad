import { NiceevalError } from "../errors.js";
import type { Store, StoredRun } from "./types.js";
import { effectiveStatus } from "./writer.js";

/** Shortest id prefix that names a run. */
export const MIN_RUN_PREFIX = 6;

/** How many existing runs an unresolved reference lists. */
const LISTED = 5;

/**
 * The run a user named: its full id, `latest`, `latest~N` (N runs before the latest), its name,
 * or a unique prefix of its id of at least 6 characters. Throws `RUN_NOT_FOUND` or
 * `RUN_AMBIGUOUS` with the most recent runs that exist.
 *
 * @example
 * const base = await resolveRunRef(store, "latest~1");
 */
export async function resolveRunRef(store: Store, ref: string): Promise<StoredRun> {
  const exact = await store.getRun(ref);
  if (exact) return exact;
  const latest = /^latest(?:~(\d+))?$/.exec(ref);
  if (latest) {
    const back = Number(latest[1] ?? 0);
    const runs = await store.listRuns({ limit: back + 1 });
    const run = runs[back];
    if (run) return run;
    throw await notFound(
      store,
      ref,
      runs.length === 0
        ? "the store has no runs yet"
        : `the store has ${runs.length} run${runs.length === 1 ? "" : "s"}`,
    );
  }
  const runs = await store.listRuns();
  const named = runs.filter((r) => r.name === ref);
  // A name and an id prefix are both ways to name a run: a run named after another one's id
  // prefix (a short git SHA) makes the reference name both, never silently one of them.
  const matches =
    ref.length >= MIN_RUN_PREFIX
      ? runs.filter((r) => r.name === ref || r.runId.startsWith(ref))
      : named;
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1)
    throw new NiceevalError(
      "RUN_AMBIGUOUS",
      `"${ref}" names ${matches.length} runs in ${store.location} (by name or id prefix); use a longer id prefix or the full id. Matching runs, newest first:\n${describeRuns(matches.slice(0, LISTED))}`,
    );
  const why =
    named.length === 0 && ref.length < MIN_RUN_PREFIX
      ? `no run has that name, and an id prefix needs at least ${MIN_RUN_PREFIX} characters`
      : "no run has that id, id prefix or name";
  throw await notFound(store, ref, why, runs);
}

async function notFound(
  store: Store,
  ref: string,
  why: string,
  known?: readonly StoredRun[],
): Promise<NiceevalError> {
  const recent = known ? known.slice(0, LISTED) : await store.listRuns({ limit: LISTED });
  const list = recent.length
    ? `Most recent runs:\n${describeRuns(recent)}`
    : "The store has no runs yet: `niceeval run` writes one.";
  return new NiceevalError(
    "RUN_NOT_FOUND",
    `no run "${ref}" in ${store.location} (${why}). Name a run by id, id prefix, name, latest or latest~N. ${list}`,
  );
}

/** One line per run: id prefix, name, start, status. */
function describeRuns(runs: readonly StoredRun[]): string {
  return runs
    .map((r) => `  ${r.runId.slice(0, 8)}  ${r.name ?? "-"}  ${r.startedAt}  ${effectiveStatus(r)}`)
    .join("\n");
}

/**
 * What to tell the user who names a new run `name` when other runs (not `runId`) already have that
 * name, or an id starting with it: the name alone will no longer resolve. Undefined when it is free.
 */
export async function takenNameWarning(
  store: Store,
  name: string,
  runId: string,
): Promise<string | undefined> {
  const taken = (await store.listRuns()).filter(
    (r) =>
      r.runId !== runId &&
      (r.name === name || (name.length >= MIN_RUN_PREFIX && r.runId.startsWith(name))),
  );
  if (taken.length === 0) return undefined;
  return `the run name "${name}" is already used in ${store.location} by:\n${describeRuns(taken.slice(0, LISTED))}\n"${name}" will name ${taken.length + 1} runs, so referring to it is ambiguous (exit 2): refer to this run by its id (${runId.slice(0, 8)}), or give each run a name of its own`;
}
