import { NiceevalError } from "../errors.js";
import { runFilter } from "../store/manifest.js";
import { resolveRunRef } from "../store/resolve.js";
import type { Store, StoredRun } from "../store/types.js";
import { findBaseline, partialBaselineNote } from "./baseline.js";

// The two runs `niceeval compare` names, shared with the viewer's comparison and `export --html --baseline`.

/**
 * Who names the two runs, for the hint of a reference that names no run: the command that takes
 * `branch:NAME`, an example of it, and what the user gave each run as (`--base`, a parameter).
 */
export interface ComparedBy {
  command: string;
  example: string;
  names: { base: string; head: string };
}

const COMPARE: ComparedBy = {
  command: "compare",
  example: "niceeval compare branch:main latest",
  names: { base: "compare's base (its first run)", head: "compare's head (its second run)" },
};

/**
 * The runs `base` and `head` name: a reference (id, prefix, name, latest~N) or `branch:NAME`, which
 * is looked up beside the run the other one names. `note` gets what is only the closest run. A base
 * `branch:NAME` with no run yet is undefined (a first run: nothing to compare); a head one throws.
 */
export async function findComparedRuns(
  store: Store,
  baseRef: string,
  headRef: string,
  note: (text: string) => void,
  by: ComparedBy = COMPARE,
): Promise<{ base: StoredRun | undefined; head: StoredRun }> {
  noBranchName(baseRef, by.names.base, by);
  noBranchName(headRef, by.names.head, by);
  // A run named by reference first: `branch:NAME` is then looked up beside it.
  let base = byBranch(baseRef) ? undefined : await named(store, baseRef, by);
  const head = byBranch(headRef)
    ? await onBranch(store, headRef, base, note)
    : await named(store, headRef, by);
  if (!head) throw new NiceevalError("RUN_NOT_FOUND", nothingOnBranch(headRef, base));
  if (byBranch(baseRef)) base = await onBranch(store, baseRef, head, note);
  return { base, head };
}

const byBranch = (ref: string) => ref.startsWith("branch:");

/** Refuse `branch:` without a name, naming what the user gave it as (`--base`, `head`). */
function noBranchName(ref: string, given: string, by: ComparedBy): void {
  if (ref === "branch:")
    throw new NiceevalError(
      "USAGE",
      `${given} is "branch:", which names no branch: give the branch's name, as branch:main (${by.example})`,
    );
}

/**
 * A run named by reference; one that names no run also says, on a line of its own (the message
 * ends with the runs it lists), that `branch:NAME` works here.
 */
async function named(store: Store, ref: string, by: ComparedBy): Promise<StoredRun> {
  try {
    return await resolveRunRef(store, ref);
  } catch (error) {
    if (error instanceof NiceevalError && error.code === "RUN_NOT_FOUND")
      throw new NiceevalError(
        "RUN_NOT_FOUND",
        `${error.message}\n${by.command} also takes branch:NAME: the latest finished run on that git branch holding the other run's evals (${by.example}).`,
      );
    throw error;
  }
}

/**
 * The run `branch:NAME` names beside `other`: the latest finished run on that git branch that
 * holds every case of `other`, as `run --baseline branch:NAME` finds it, never `other` itself
 * (said through `note` when it is only the closest); with no other run (both runs named by branch),
 * the latest finished run there that is not a shard. Undefined when the branch has none.
 */
async function onBranch(
  store: Store,
  ref: string,
  other: StoredRun | undefined,
  note: (text: string) => void,
): Promise<StoredRun | undefined> {
  const evalIds = other ? other.evals.map((e) => e.evalId) : [];
  const filter = other ? runFilter(other) : undefined;
  const run = await findBaseline(store, ref, evalIds, {
    ...(other?.shard ? { shard: other.shard } : {}),
    ...(filter !== undefined ? { filter } : {}),
    ...(other ? { exclude: other.runId } : {}),
  });
  if (run && other) {
    const head = `run ${other.runId.slice(0, 8)}`;
    const partial = partialBaselineNote(ref, run, evalIds, filter, { ref, head });
    if (partial) note(partial);
  }
  return run;
}

/** What to say of `branch:NAME` naming no run (beside `other`, when there is one). */
export function nothingOnBranch(ref: string, other: StoredRun | undefined): string {
  const branch = ref.slice("branch:".length);
  const beside = other
    ? ` besides run ${other.runId.slice(0, 8)}${other.name !== undefined ? ` (${other.name})` : ""} holds any of its evals`
    : " that is not a shard";
  return `${ref}: no finished run on branch "${branch}"${beside}`;
}
