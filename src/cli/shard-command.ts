import { checkMergeable } from "../merge/check.js";
import { pluralNoun } from "../plural.js";
import type { Shard } from "../shard/shard.js";
import { formatShard } from "../shard/shard.js";
import { runFilter } from "../store/manifest.js";
import { MIN_RUN_PREFIX } from "../store/resolve.js";
import type { RunManifest, Store, StoredRun } from "../store/types.js";
import { parseCliArgs, storedRunArgs } from "./args.js";
import { shellWord, storeWords } from "./command-words.js";

/**
 * The `niceeval run` that runs shard `shard` of the sharded run that `run` (one of its shards)
 * belongs to, so that `niceeval merge` takes it with the others: it repeats what merge checks
 * equal from `run`'s stored command line (its eval paths and --exclude, --filter and --trials;
 * the eval files themselves when that line no longer parses), and `store`, the --store the
 * merge read (a PostgreSQL URL is left out: it would print its password).
 *
 * @example
 * shardRunCommand(shard1, { index: 3, count: 3 }); // "niceeval run --trials 3 --shard 3/3"
 */
export function shardRunCommand(run: RunManifest, shard: Shard, store?: string): string {
  const original = storedRunArgs(run.command);
  const words = ["niceeval", "run"];
  const option = (flag: string, value: string) =>
    // A value that starts with "-" would be read as an option of its own.
    words.push(...(value.startsWith("-") ? [`${flag}=${value}`] : [flag, value]));
  words.push(...(original ? original.paths : run.files.map((f) => f.path)));
  for (const pattern of original?.exclude ?? []) option("--exclude", pattern);
  const filter = runFilter(run);
  if (filter !== undefined) option("--filter", filter);
  const trials = original ? original.trials : run.trials === 1 ? undefined : run.trials;
  if (trials !== undefined) option("--trials", String(trials));
  option("--shard", formatShard(shard));
  return [...words.map(shellWord), ...storeWords(store)].join(" ");
}

/**
 * What to say when `latest` or `latest~N` named one shard of a sharded run (`show`, `compare`):
 * the runs are ordered by their start, and a merged run starts with its first shard, so a later
 * shard comes before it. It names the merged run that holds the shard; when none does (its shards
 * were never merged), it says so, and how to merge them: the other shards the store holds by id,
 * and the `niceeval run` of each one it lacks. `store` is the command's --store, repeated in the
 * commands it gives. Undefined for any other reference or run.
 */
export async function latestShardNote(
  store: Store,
  ref: string,
  run: StoredRun,
  storeFlag?: string,
): Promise<string | undefined> {
  if (!run.shard || !/^latest(~\d+)?$/.test(ref)) return undefined;
  const { index, count } = run.shard;
  const head = `niceeval: ${ref} is run ${named(run)}, shard ${index}/${count} of a sharded run, not the whole run`;
  // Newest first: the merged run starts with its first shard, so it is among the runs started
  // around this one, as its other shards are.
  const runs = await store.listRuns({ limit: RUNS_LOOKED_AT });
  const merged = runs.filter((r) => !r.shard && mergedFrom(r, run));
  const whole = merged.find((r) => r.status === "finished") ?? merged[0];
  if (whole)
    return `${head}: runs are ordered by when they started, and a merged run starts with its first shard. The whole run is run ${named(whole)}, merged from it: name it by its ${whole.name !== undefined ? "name or " : ""}id\n`;
  // The newest stored run of each other shard that merges with this one.
  const others = new Map<number, StoredRun>();
  for (const r of runs)
    if (r.shard?.count === count && r.shard.index !== index && !others.has(r.shard.index))
      if (mergeable(run, r)) others.set(r.shard.index, r);
  const lacking: number[] = [];
  for (let i = 1; i <= count; i++) if (i !== index && !others.has(i)) lacking.push(i);
  const id = run.runId.slice(0, 8);
  const merge = [
    "niceeval merge",
    id,
    ...[...others.values()].sort((a, b) => a.shard!.index - b.shard!.index).map(shortId),
    ...(lacking.length === 0 ? [] : [lacking.length === 1 ? "<its run id>" : "<their run ids>"]),
    ...storeWords(storeFlag),
  ].join(" ");
  const shards = lacking.map((i) => `${i}/${count}`).join(", ");
  const runThem = lacking
    .map((i) => `\`${shardRunCommand(run, { index: i, count }, storeFlag)}\``)
    .join(" and ");
  const how =
    lacking.length === 0
      ? `\`${merge}\``
      : `run the missing ${pluralNoun(lacking.length, "shard")} ${shards} (${runThem}) or import ${lacking.length === 1 ? "its export" : "their exports"}, then \`${merge}\``;
  return `${head}, and no run in the store was merged from it (its shards were never merged), so ${ref} means this shard alone. For the whole run, merge its shards: ${how}; to mean this shard, name it by its id (${id})\n`;
}

/** Runs looked through for a shard's merged run and its other shards, newest first. */
const RUNS_LOOKED_AT = 1000;

/** A run as the note names it: its id prefix, and its name when it has one. */
const named = (run: StoredRun) =>
  `${shortId(run)}${run.name !== undefined ? ` (${run.name})` : ""}`;

const shortId = (run: StoredRun) => run.runId.slice(0, 8);

/**
 * Whether `merged` was merged from `shard`: its recorded inputs, or, for a merged run stored
 * before they were kept, a reference on its command line that names the shard (id, prefix, name).
 */
function mergedFrom(merged: StoredRun, shard: StoredRun): boolean {
  if (merged.mergedFrom) return merged.mergedFrom.includes(shard.runId);
  const at = merged.command.indexOf("merge");
  if (at < 0) return false;
  let refs: string[];
  try {
    const parsed = parseCliArgs(merged.command.slice(at));
    if (parsed.command !== "merge") return false;
    refs = parsed.runs;
  } catch {
    return false;
  }
  return refs.some(
    (ref) =>
      ref === shard.runId ||
      ref === shard.name ||
      (ref.length >= MIN_RUN_PREFIX && shard.runId.startsWith(ref)),
  );
}

/** Whether two runs merge (the same eval files and configuration, shards of one count). */
function mergeable(a: RunManifest, b: RunManifest): boolean {
  try {
    checkMergeable([a, b]);
    return true;
  } catch {
    return false;
  }
}
