import { NiceevalError } from "../errors.js";
import { resolveRunRef } from "../store/resolve.js";
import type { Store, StoredRun } from "../store/types.js";

/**
 * The run `--baseline` names, looked up before the new run begins: a run reference, or
 * `branch:NAME` for the latest finished run on that git branch that ran the same evals.
 * Undefined when there is nothing to compare with yet (a branch without such a run, or
 * `latest` on an empty store): a first run must not fail for it. A reference that names no
 * run otherwise throws, listing the runs that exist.
 */
export async function findBaseline(
  store: Store,
  ref: string,
  evalIds: readonly string[],
): Promise<StoredRun | undefined> {
  if (!ref.startsWith("branch:")) {
    try {
      return await resolveRunRef(store, ref);
    } catch (error) {
      const latest = /^latest(~\d+)?$/.test(ref);
      if (latest && error instanceof NiceevalError && error.code === "RUN_NOT_FOUND")
        return undefined;
      throw error;
    }
  }
  const branch = ref.slice("branch:".length);
  if (branch === "")
    throw new NiceevalError("USAGE", "--baseline branch: needs a branch name, as branch:main");
  const wanted = new Set(evalIds);
  const runs = await store.listRuns({ branch, status: "finished", limit: 50 });
  return runs.find((run) => run.evals.some((e) => wanted.has(e.evalId)));
}
