import { NiceevalError } from "../errors.js";
import type { Shard } from "../shard/shard.js";
import { resolveRunRef } from "../store/resolve.js";
import type { Store, StoredRun } from "../store/types.js";
import { effectiveStatus } from "../store/writer.js";
import { closest } from "../suggest.js";

/**
 * What to say of a baseline that did not finish (interrupted, crashed, or left running): the
 * comparison then covers only the attempts it stored. Undefined for a finished run.
 */
export function unfinishedBaselineNote(ref: string, run: StoredRun): string | undefined {
  const status = effectiveStatus(run);
  if (status === "finished") return undefined;
  return `niceeval: --baseline ${ref} is run ${run.runId.slice(0, 8)}, which did not finish (${status}): the comparison covers only the attempts it stored\n`;
}

/**
 * Runs looked through for `latest~N` and `branch:NAME`, newest first: enough for the shards of
 * many sharded runs to sit in front of the merged run they belong to.
 */
const RUNS_SEARCHED = 1000;

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
  shard?: Shard,
): Promise<StoredRun | undefined> {
  // Another part of a sharded run is never a baseline by itself: once merged, the merged run is
  // (it starts with its first shard, so the later shards would be newer). A shard may take the
  // same shard of an earlier run.
  const comparable = (run: StoredRun) =>
    !run.shard ||
    (shard !== undefined && run.shard.index === shard.index && run.shard.count === shard.count);
  const latest = /^latest(?:~(\d+))?$/.exec(ref);
  if (latest) {
    const back = Number(latest[1] ?? 0);
    const all = await store.listRuns({ limit: RUNS_SEARCHED });
    const runs = all.filter(comparable);
    if (runs.length > back) return runs[back];
    // An empty store, or `latest` with nothing to compare yet: a first run.
    if (all.length === 0 || (back === 0 && runs.length === 0)) return undefined;
    const which = shard
      ? `whole runs, or shard ${shard.index}/${shard.count} of earlier runs`
      : "runs that are not a shard of another run";
    throw new NiceevalError(
      "RUN_NOT_FOUND",
      `no run "${ref}" to compare with in ${store.location}: it holds ${runs.length} to compare with (${which}). Name the baseline by id, name or latest~N within those.`,
    );
  }
  if (!ref.startsWith("branch:")) {
    try {
      return await resolveRunRef(store, ref);
    } catch (error) {
      // `latest` on a store with no run yet is a first run; latest~9 of a shorter history is not.
      const latest = /^latest(~\d+)?$/.test(ref);
      if (
        latest &&
        error instanceof NiceevalError &&
        error.code === "RUN_NOT_FOUND" &&
        (await store.listRuns({ limit: 1 })).length === 0
      )
        return undefined;
      throw error;
    }
  }
  const branch = ref.slice("branch:".length);
  if (branch === "")
    throw new NiceevalError("USAGE", "--baseline branch: needs a branch name, as branch:main");
  const wanted = new Set(evalIds);
  const runs = await store.listRuns({ branch, status: "finished", limit: RUNS_SEARCHED });
  return runs.find((run) => comparable(run) && run.evals.some((e) => wanted.has(e.evalId)));
}

/** A `--baseline branch:NAME` that names no branch of the store, while the store has others. */
export interface UnknownBranch {
  /** What to say on stderr before the run. */
  note: string;
  /**
   * A branch of the store so close to the name that the name is most likely misspelt: the
   * regression gates are then not checked (not passed), as for a baseline that cannot be compared.
   */
  likely?: string;
}

/**
 * What to say when `--baseline branch:NAME` found no run because the store has none on that
 * branch at all, while it has runs on others: most likely a misspelt branch, which would leave
 * every later run uncompared (and `--fail-on-regression` unchecked) without a word. Undefined
 * when the branch has runs (just none comparable yet) or the store has no branch at all.
 */
export async function unknownBranch(store: Store, ref: string): Promise<UnknownBranch | undefined> {
  if (!ref.startsWith("branch:")) return undefined;
  const branch = ref.slice("branch:".length);
  const branches = new Set<string>();
  for (const run of await store.listRuns({ limit: RUNS_SEARCHED }))
    if (run.git?.branch) branches.add(run.git.branch);
  if (branches.size === 0 || branches.has(branch)) return undefined;
  const likely = closest(branch, branches);
  const known = [...branches].slice(0, 10).join(", ");
  const note = `niceeval: --baseline ${ref}: the store has no run on branch "${branch}"; its runs are on ${known}${branches.size > 10 ? ", …" : ""}${likely ? ` (did you mean branch:${likely}?)` : ""}. This run is compared with nothing\n`;
  return likely ? { note, likely } : { note };
}
