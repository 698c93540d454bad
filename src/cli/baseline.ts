import { existsSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { NiceevalError } from "../errors.js";
import { pluralNoun } from "../plural.js";
import { cell } from "../report/markdown-cell.js";
import type { Shard } from "../shard/shard.js";
import { runFilter } from "../store/manifest.js";
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

/** What `findBaseline` needs to know of the run being compared, besides its evals. */
export interface BaselineFor {
  /** The shard this run holds: the same shard of an earlier run may be its baseline. */
  shard?: Shard;
  /** This run's `--filter`: a baseline run with the same one holds the same cases. */
  filter?: string;
  /** A stored run never taken as the baseline (the head of `compare branch:NAME <run>`). */
  exclude?: string;
}

/**
 * The run `--baseline` names, looked up before the new run begins: a run reference, or
 * `branch:NAME` for the latest finished run on that git branch that is whole for this run (not
 * cut down by another `--filter`, holding every eval in `evalIds`); when none is, the closest
 * one (`partialBaselineNote` says what it lacks). Undefined when there is nothing to compare with
 * yet (a branch without a run of these evals, or `latest` on an empty store): a first run must
 * not fail for it. A reference that names no run otherwise throws, listing the runs that exist.
 */
export async function findBaseline(
  store: Store,
  ref: string,
  evalIds: readonly string[],
  of: BaselineFor = {},
): Promise<StoredRun | undefined> {
  const { shard } = of;
  // Another part of a sharded run is never a baseline by itself: once merged, the merged run is
  // (it starts with its first shard, so the later shards would be newer). A shard may take the
  // same shard of an earlier run.
  const comparable = (run: StoredRun) =>
    run.runId !== of.exclude &&
    (!run.shard ||
      (shard !== undefined && run.shard.index === shard.index && run.shard.count === shard.count));
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
  const runs = (await store.listRuns({ branch, status: "finished", limit: RUNS_SEARCHED })).filter(
    (run) => comparable(run) && (wanted.size === 0 || run.evals.some((e) => wanted.has(e.evalId))),
  );
  // Newest first: the latest whole run, else the closest partial one (a run of every case before
  // a filtered one, then the one holding the most of these evals, then the newest).
  let closest: { run: StoredRun; filtered: boolean; missing: number } | undefined;
  for (const run of runs) {
    const lacks = baselineLacks(run, evalIds, of.filter);
    if (!lacks) return run;
    const filtered = lacks.filter !== undefined;
    const missing = lacks.evals.length;
    if (
      !closest ||
      (closest.filtered && !filtered) ||
      (closest.filtered === filtered && missing < closest.missing)
    )
      closest = { run, filtered, missing };
  }
  return closest?.run;
}

/** What a baseline lacks to hold every case of a run: the run's evals it has not, its other filter. */
export interface BaselineLacks {
  /** Evals of the run the baseline does not hold. */
  evals: string[];
  /** The baseline's `--filter`, when it had one the run has not. */
  filter?: string;
}

/**
 * What `run` lacks as the baseline of a run of `evalIds` with `filter`, or undefined when it is
 * whole for it: it holds every one of those evals and ran no `--filter` but the run's own.
 */
export function baselineLacks(
  run: StoredRun,
  evalIds: readonly string[],
  filter?: string,
): BaselineLacks | undefined {
  const held = new Set(run.evals.map((e) => e.evalId));
  const evals = evalIds.filter((id) => !held.has(id));
  const theirs = runFilter(run);
  const filtered = theirs !== undefined && theirs !== filter;
  if (evals.length === 0 && !filtered) return undefined;
  return { evals, ...(filtered ? { filter: theirs } : {}) };
}

/**
 * The warning for a baseline found by `latest`, `latest~N` or `branch:NAME` that does not hold
 * every case of the run compared with it (a debugging run with `--filter`, a run of fewer evals):
 * the cases it lacks count as added, so a regression in them goes unseen. A run named by id or
 * name is taken as named, without a word. Undefined when the baseline is whole.
 */
export function partialBaselineNote(
  ref: string,
  run: StoredRun,
  evalIds: readonly string[],
  filter?: string,
  /** How the note names the reference and the run compared (`compare` has no --baseline). */
  words: { ref: string; head: string } = { ref: `--baseline ${ref}`, head: "this run" },
): string | undefined {
  const byBranch = ref.startsWith("branch:");
  if (!byBranch && !/^latest(~\d+)?$/.test(ref)) return undefined;
  const lacks = baselineLacks(run, evalIds, filter);
  if (!lacks) return undefined;
  const named = `run ${run.runId.slice(0, 8)}${run.name !== undefined ? ` (${run.name})` : ""}`;
  const what: string[] = [];
  if (lacks.filter !== undefined)
    what.push(
      `ran --filter ${JSON.stringify(lacks.filter)}${filter !== undefined ? ` (${words.head}: --filter ${JSON.stringify(filter)})` : ""}`,
    );
  if (lacks.evals.length > 0) {
    const listed = lacks.evals.slice(0, 5).join(", ");
    const more = lacks.evals.length > 5 ? ` and ${lacks.evals.length - 5} more` : "";
    what.push(`lacks ${pluralNoun(lacks.evals.length, "eval")} ${listed}${more}`);
  }
  const cost = `the cases of ${words.head} it did not run count as added, so a regression in them goes unseen`;
  if (byBranch) {
    const branch = ref.slice("branch:".length);
    const whole =
      filter !== undefined ? `with no --filter but ${JSON.stringify(filter)}` : "with no --filter";
    return `niceeval: warning: ${words.ref}: no finished run on branch "${branch}" holds every eval of ${words.head} ${whole}; comparing with the closest, ${named}, which ${what.join(" and ")}: ${cost}. Run every eval on ${branch} to have a whole baseline\n`;
  }
  return `niceeval: warning: ${words.ref} is ${named}, which ${what.join(" and ")}: ${cost}. Name a whole run (by id or name) or branch:NAME to compare every case\n`;
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

/** What `run --baseline` says when its store did not exist before the run (it created it). */
export interface CreatedStoreNote {
  /** The warning on stderr before the run. */
  warning: string;
  /** The line after the report, in place of "nothing to compare". */
  note: string;
  /** The same for a Markdown report (the step summary). */
  markdown: string;
}

/**
 * What to say when `--baseline` finds nothing because the run's SQLite store did not exist: the
 * run just created it, empty, so there is nothing to compare with. A store path is relative to
 * the working directory, so a job run from a subfolder (`working-directory: evals`) starts a
 * new store there instead of reading the project's; an existing store at the same path from a
 * folder above is named as the likely one. The exit code stays a first run's.
 */
export function createdStoreNote(ref: string, location: string, cwd: string): CreatedStoreNote {
  const path = resolve(cwd, location);
  const relativeNote = isAbsolute(location)
    ? ""
    : ` A store path (here ${location}) is relative to the working directory, ${cwd}.`;
  const above = isAbsolute(location) ? undefined : storeAbove(location, cwd);
  const fix = above
    ? `A store exists at ${above}: pass --store ${relative(cwd, above)} (or set NICEEVAL_STORE) to compare with its runs`
    : "Pass --store <path> or set NICEEVAL_STORE to point at the store that holds the baseline";
  const what = `the store ${path} did not exist, so this run created it, empty: there is no run to compare with, and no regression gate was checked.${relativeNote} ${fix}`;
  return {
    warning: `niceeval: warning: --baseline ${ref}: ${what}\n`,
    note: `warning: baseline ${ref}: nothing compared: ${what}`,
    markdown: `> ⚠️ **No baseline**: ${cell(`--baseline ${ref}: ${what}`)}`,
  };
}

/** The nearest folder above `cwd` with a file at the relative `location`, as that file's path. */
function storeAbove(location: string, cwd: string): string | undefined {
  for (let dir = cwd; dirname(dir) !== dir; ) {
    dir = dirname(dir);
    const candidate = resolve(dir, location);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}
