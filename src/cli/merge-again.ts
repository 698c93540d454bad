import { NiceevalError } from "../errors.js";
import { describeRun } from "../merge/check.js";
import type { MergeResult } from "../merge/merge-runs.js";
import { pluralNoun } from "../plural.js";
import { takenNameWarning } from "../store/resolve.js";
import type { RunManifest, Store } from "../store/types.js";
import { type MergeArgs, parseCliArgs } from "./args.js";
import { shellWord, storeWords } from "./command-words.js";
import { shardRunCommand } from "./shard-command.js";

// What `niceeval merge` advises when its inputs do not make a whole run: the exact commands that
// run what is missing and merge again, the same inputs with the new shards (a merged run is no
// shard of the next merge).

/**
 * The problem line of a merge that lacks shards: the `niceeval run` of each missing shard (named
 * after its siblings, `ci-7-1` → `ci-7-2`, when that name is free) and the `niceeval merge` of
 * this merge's inputs, as given, with the new shards.
 */
export async function missingShardsProblem(
  result: MergeResult,
  inputs: readonly RunManifest[],
  args: MergeArgs,
  store: Store,
): Promise<string> {
  const n = result.shardCount!;
  const one = result.missingShards.length === 1;
  const missing = result.missingShards.map((i) => `${i}/${n}`);
  // Run as the shards were: merge takes a shard of other files, --filter or --trials for
  // another run and refuses it.
  const shards = inputs.filter((manifest) => manifest.shard);
  const runs: string[] = [];
  const refs: string[] = [];
  for (const index of result.missingShards) {
    const name = await freeShardName(shards, index, store);
    const run = shardRunCommand(shards[0]!, { index, count: n }, args.store);
    runs.push(`\`${run}${name !== undefined ? ` --name ${shellWord(name)}` : ""}\``);
    refs.push(name !== undefined ? shellWord(name) : `<the run id of shard ${index}/${n}>`);
  }
  const merge = mergeCommand([...args.runs.map(shellWord), ...refs], args.store);
  const renamed =
    args.name !== undefined
      ? ` (with a --name other than ${shellWord(args.name)}, which names this merged run)`
      : "";
  const list = (words: readonly string[]) =>
    words.length > 1 ? `${words.slice(0, -1).join(", ")} and ${words.at(-1)}` : words[0]!;
  return `${pluralNoun(missing.length, "missing shard")} ${missing.join(", ")}: the merged run lacks ${one ? "its" : "their"} cases; run ${list(runs)} (or import ${one ? "its export" : "their exports"}, and name ${one ? "that run or export" : "those runs or exports"} below), then merge this merge's inputs with ${one ? "it" : "them"} into a new run, not this merged run, which is no shard: \`${merge}\`${renamed}`;
}

/**
 * The name for the run of shard `index`: a shard's name that ends in its own index, with the new
 * index in its place (`ci-7-1` → `ci-7-2`), when no stored run has it; else undefined.
 */
async function freeShardName(
  shards: readonly RunManifest[],
  index: number,
  store: Store,
): Promise<string | undefined> {
  for (const shard of shards) {
    const own = String(shard.shard!.index);
    const name = shard.name;
    if (name === undefined || !name.endsWith(own) || /\d$/.test(name.slice(0, -own.length)))
      continue;
    const candidate = `${name.slice(0, -own.length)}${index}`;
    return (await takenNameWarning(store, candidate, "")) === undefined ? candidate : undefined;
  }
  return undefined;
}

/** `niceeval merge <refs> [--store <store>]` (a PostgreSQL URL is left out: it holds a password). */
function mergeCommand(refs: readonly string[], store: string | undefined): string {
  return ["niceeval merge", ...refs, ...storeWords(store)].join(" ");
}

/**
 * Refuse (`RUN_MERGE_MISMATCH`) a merged run among shards (the advised merge after a missing
 * shard, given the incomplete merged run and the new shard): it is no shard, so its cases cannot
 * be told apart from the new one's by shard. Says to merge the inputs it was made from (as its
 * merge named them, else by id) with the shards given here, as typed, but those it was made from;
 * given only those, says that merging them again adds nothing.
 */
export function refuseMergedAmongShards(inputs: readonly RunManifest[], args: MergeArgs): void {
  const mergedAt = inputs.findIndex((m) => !m.shard && m.mergedFrom !== undefined);
  if (mergedAt < 0 || !inputs.some((m) => m.shard)) return;
  const merged = inputs[mergedAt]!;
  const made = mergedInputs(merged);
  // A shard the merged run was made from adds nothing: the advised merge leaves it out.
  const isNew = (m: RunManifest | undefined) =>
    m?.shard !== undefined && !merged.mergedFrom!.includes(m.runId);
  const shards = args.runs.filter((_, i) => isNew(inputs[i])).map(shellWord);
  const shardRuns = inputs.filter((m) => m.shard).map(describeRun);
  const from = merged.mergedFrom!.length;
  const what = `cannot merge run ${describeRun(merged)} with ${shardRuns.length === 1 ? "shard" : "shards"} ${shardRuns.join(", ")}: run ${merged.runId.slice(0, 8)} is a merged run (of ${from} ${from === 1 ? "run" : "runs"}, ${merged.mergedFrom!.map((id) => id.slice(0, 8)).join(", ")})`;
  const as = made.asTyped ? ", as its merge named them," : " (by id, or their exports)";
  const why =
    shards.length === 0
      ? ` made from ${shardRuns.length === 1 ? "that shard" : "those shards"} already, so merging ${shardRuns.length === 1 ? "it" : "them"} again adds nothing. To add another shard, merge the runs it was made from${as} with it: \`${mergeCommand([...made.refs, "<the new shard>"], args.store)}\``
      : `, not a shard, so its cases cannot be told apart by shard. Merge the runs it was made from${as} with the new ${shards.length === 1 ? "shard" : "shards"}: \`${mergeCommand([...made.refs, ...shards], args.store)}\``;
  throw new NiceevalError("RUN_MERGE_MISMATCH", `${what}${why}`);
}

/** The inputs a merged run was made from: as its `niceeval merge` named them, else their ids. */
function mergedInputs(merged: RunManifest): { refs: string[]; asTyped: boolean } {
  const at = merged.command.indexOf("merge");
  if (at >= 0)
    try {
      const parsed = parseCliArgs(merged.command.slice(at));
      if (parsed.command === "merge") return { refs: parsed.runs.map(shellWord), asTyped: true };
    } catch {
      // A command line this niceeval no longer parses: name the runs by id.
    }
  return { refs: (merged.mergedFrom ?? []).map((id) => id.slice(0, 8)), asTyped: false };
}
