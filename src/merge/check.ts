import { NiceevalError } from "../errors.js";
import { formatShard } from "../shard/shard.js";
import { runFilter } from "../store/manifest.js";
import type { RunManifest } from "../store/types.js";

/** A run as merge messages name it: its id prefix, and its shard or name when it has one. */
export function describeRun(run: RunManifest): string {
  const id = run.runId.slice(0, 8);
  if (run.shard) return `${id} (shard ${formatShard(run.shard)})`;
  return run.name !== undefined ? `${id} (${run.name})` : id;
}

/**
 * Refuse (`RUN_MERGE_MISMATCH`) runs that did not run the same thing: the same eval files with
 * the same contents, each eval with the same configuration, dataset and trials, and, when they
 * are shards, shards of one count and no whole run among them. Attempts of such runs would not
 * add up to one run.
 */
export function checkMergeable(runs: readonly RunManifest[]): void {
  const [first, ...others] = runs;
  if (!first) return;
  const refuse = (other: RunManifest, what: string) =>
    new NiceevalError(
      "RUN_MERGE_MISMATCH",
      `cannot merge run ${describeRun(first)} with run ${describeRun(other)}: ${what}. Merge only runs of the same eval files and configuration (the shards of one \`niceeval run --shard i/n\` on one checkout).`,
    );
  const files = new Map(first.files.map((f) => [f.path, f.hash]));
  const evals = new Map(first.evals.map((e) => [e.evalId, e]));
  const selected = filterOf(first);
  for (const other of others) {
    const [a, b] = [first.runId.slice(0, 8), other.runId.slice(0, 8)];
    const theirFilter = filterOf(other);
    if (theirFilter !== selected)
      throw refuse(
        other,
        `they ran other cases (${shownFilter(selected)} in ${a}, ${shownFilter(theirFilter)} in ${b}), so cases one selected and the other did not would be missing without a word`,
      );
    const theirs = new Map(other.files.map((f) => [f.path, f.hash]));
    for (const [path, hash] of files) {
      const their = theirs.get(path);
      const moved = other.files.find((f) => f.hash === hash && !files.has(f.path));
      if (their === undefined && moved)
        throw refuse(
          other,
          `eval file ${path} of run ${a} is ${moved.path} in run ${b}: the same file, named from another folder (paths are kept relative to the folder a run starts in), so run every shard from the same folder`,
        );
      if (their === undefined) throw refuse(other, `eval file ${path} is in run ${a} only`);
      if (their !== hash)
        throw refuse(other, `eval file ${path} differs (hash ${hash} in ${a}, ${their} in ${b})`);
    }
    for (const path of theirs.keys())
      if (!files.has(path)) throw refuse(other, `eval file ${path} is in run ${b} only`);
    for (const e of other.evals) {
      const mine = evals.get(e.evalId);
      if (!mine) throw refuse(other, `eval "${e.evalId}" is in run ${b} only${notLoaded(first)}`);
      if (mine.configHash !== e.configHash)
        throw refuse(
          other,
          `eval "${e.evalId}" is configured differently (configuration hash ${mine.configHash} in ${a}, ${e.configHash} in ${b})`,
        );
      if (
        mine.datasetHash !== undefined &&
        e.datasetHash !== undefined &&
        mine.datasetHash !== e.datasetHash
      )
        throw refuse(
          other,
          `eval "${e.evalId}" read other cases (dataset hash ${mine.datasetHash} in ${a}, ${e.datasetHash} in ${b})`,
        );
      if (mine.trials !== e.trials)
        throw refuse(
          other,
          `eval "${e.evalId}" ran ${mine.trials} trial${mine.trials === 1 ? "" : "s"} per case in ${a} and ${e.trials} in ${b}`,
        );
    }
    const theirIds = new Set(other.evals.map((e) => e.evalId));
    for (const id of evals.keys())
      if (!theirIds.has(id))
        throw refuse(other, `eval "${id}" is in run ${a} only${notLoaded(other)}`);
  }
  const sharded = runs.filter((r) => r.shard);
  const mixed = sharded.find((r) => r.shard!.count !== sharded[0]!.shard!.count);
  if (mixed)
    throw new NiceevalError(
      "RUN_MERGE_MISMATCH",
      `cannot merge run ${describeRun(sharded[0]!)} with run ${describeRun(mixed)}: they are shards of different counts, so their cases overlap and leave gaps. Merge the shards of one \`--shard i/n\` count.`,
    );
  const whole = runs.filter((r) => !r.shard);
  if (whole.length > 0 && sharded.length > 0) {
    const list = (group: readonly RunManifest[]) => group.map(describeRun).join(", ");
    const wholeRuns =
      whole.length === 1
        ? `run ${list(whole)} is a whole run`
        : `runs ${list(whole)} are whole runs`;
    const shards =
      sharded.length === 1 ? `run ${list(sharded)} is a shard` : `runs ${list(sharded)} are shards`;
    const n = sharded[0]!.shard!.count;
    const merged = whole.find((r) => r.mergedFrom !== undefined);
    // A merged run may lack shards (a merge that said one was missing): it is no shard either.
    const why = merged
      ? `Run ${describeRun(merged)} is a merged run (of ${merged.mergedFrom!.map((id) => id.slice(0, 8)).join(", ")}), not a shard: merge the runs it was made from with the new shards instead`
      : `A whole run is not a shard of another run (it holds every case); merge the ${n} shards of one \`niceeval run --shard i/${n}\`, or whole runs only`;
    throw new NiceevalError(
      "RUN_MERGE_MISMATCH",
      `cannot merge whole runs with shards: ${wholeRuns}, ${shards}. ${why}.`,
    );
  }
}

/**
 * Refuse (`RUN_MERGE_MISMATCH`) runs made at different git commits: the eval files may hash the
 * same while what they import (the application under test) changed, so the cases of one commit
 * and another would not add up to one run of either. Runs outside a checkout, which recorded no
 * commit, are not compared; uncommitted changes are named, not refused (as queue workers are).
 */
export function checkSameCommit(runs: readonly RunManifest[]): void {
  const byCommit = new Map<string, RunManifest[]>();
  for (const run of runs)
    if (run.git) byCommit.set(run.git.commit, [...(byCommit.get(run.git.commit) ?? []), run]);
  if (byCommit.size < 2) return;
  const groups = [...byCommit].map(([commit, group]) => {
    const names = group.map(
      (r) => `${describeRun(r)}${r.git!.dirty ? " with uncommitted changes" : ""}`,
    );
    return `${names.length === 1 ? "run" : "runs"} ${names.join(", ")} at ${commit.slice(0, 12)}`;
  });
  throw new NiceevalError(
    "RUN_MERGE_MISMATCH",
    `cannot merge runs made at different git commits: ${groups.join("; ")}. What the eval files import may differ between commits, so the merged run would be of neither. Run every shard at one commit, then merge the shards of that commit: ${rerunAdvice([...byCommit])}.`,
  );
}

/** Which shards to run again at which commit, so that every shard ran at one. */
function rerunAdvice(byCommit: readonly [string, RunManifest[]][]): string {
  const redo = ([commit]: [string, RunManifest[]]) => {
    const others = byCommit.filter(([c]) => c !== commit).flatMap(([, group]) => group);
    return `check out ${commit.slice(0, 12)} and run ${others.map(describeRun).join(", ")} again there`;
  };
  const how = "each with the same `niceeval run --shard i/n` as before";
  return byCommit.length === 2
    ? `${redo(byCommit[0]!)}, or ${redo(byCommit[1]!)}, ${how}`
    : `${redo(byCommit[0]!)}, ${how}`;
}

/** The `--filter` a run was started with ("" without one). */
const filterOf = (run: RunManifest): string => runFilter(run) ?? "";

const shownFilter = (filter: string) =>
  filter === "" ? "no --filter" : `--filter ${JSON.stringify(filter)}`;

/** Why a run may lack an eval: the files it could not load, as a clause ("" when none). */
function notLoaded(run: RunManifest): string {
  const errors = run.loadErrors ?? [];
  if (errors.length === 0) return "";
  const [error] = errors;
  return ` (run ${run.runId.slice(0, 8)} could not load ${error!.file}: ${error!.message}${errors.length > 1 ? `, and ${errors.length - 1} more file${errors.length === 2 ? "" : "s"}` : ""}; fix it and run that shard again)`;
}

/** Which shards the inputs hold, known from their manifests alone. */
export interface Coverage {
  /** Shard indexes of n that no input holds (empty when an input is a whole run). */
  missingShards: number[];
  shardCount?: number;
  /** Shards held by more than one input, as `i/n`. */
  repeatedShards: string[];
}

/** Which shards the inputs hold, which are missing, which are repeated. */
export function coverageOf(runs: readonly RunManifest[]): Coverage {
  const whole = runs.some((r) => !r.shard);
  const count = runs.find((r) => r.shard)?.shard?.count;
  if (count === undefined) return { missingShards: [], repeatedShards: [] };
  const held = new Map<number, number>();
  for (const r of runs) if (r.shard) held.set(r.shard.index, (held.get(r.shard.index) ?? 0) + 1);
  const missingShards: number[] = [];
  if (!whole) for (let i = 1; i <= count; i++) if (!held.has(i)) missingShards.push(i);
  const repeatedShards = [...held]
    .filter(([, n]) => n > 1)
    .map(([i]) => `${i}/${count}`)
    .sort();
  return { missingShards, shardCount: count, repeatedShards };
}
