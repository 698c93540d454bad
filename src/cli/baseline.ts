import { NiceevalError } from "../errors.js";
import { resolveRunRef } from "../store/resolve.js";
import type { Store, StoredRun } from "../store/types.js";

/**
 * The run `--baseline` names: a run reference, or `branch:NAME` for the latest finished run
 * on that git branch that ran the same evals. Undefined when a branch has no such run yet
 * (the first run on a branch has nothing to compare with, and must not fail for it).
 */
export async function findBaseline(
  store: Store,
  ref: string,
  evalIds: readonly string[],
  excludeRunId: string,
): Promise<StoredRun | undefined> {
  if (!ref.startsWith("branch:")) return resolveRunRef(store, ref);
  const branch = ref.slice("branch:".length);
  if (branch === "")
    throw new NiceevalError("USAGE", "--baseline branch: needs a branch name, as branch:main");
  const wanted = new Set(evalIds);
  const runs = await store.listRuns({ branch, status: "finished", limit: 50 });
  return runs.find(
    (run) => run.runId !== excludeRunId && run.evals.some((e) => wanted.has(e.evalId)),
  );
}
