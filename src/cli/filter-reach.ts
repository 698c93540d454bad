// Whether a --filter given with --shard selected cases at all: a shard may hold none of the cases
// the filter selects (they hash to other shards), which is an empty shard, not a filter that
// selects nothing (a usage error, exit 2).

import type { CaseSelector } from "../runner/source.js";
import type { RunSummary } from "../runner/summary.js";
import { formatShard, type Shard } from "../shard/shard.js";

/** What a run's selection is read from: its --filter and --shard. */
interface Selection {
  filter?: string | undefined;
  shard?: Shard | undefined;
}

/** Per run (by its parsed arguments): whether any case passed --filter, in any shard. */
const reached = new WeakMap<Selection, { any: boolean }>();

function reachOf(args: Selection): { any: boolean } {
  let reach = reached.get(args);
  if (!reach) {
    reach = { any: false };
    reached.set(args, reach);
  }
  return reach;
}

/**
 * The selector to put after --filter and before the shard's: it keeps every case, and notes that
 * one passed the filter. The engine asks selectors in order and stops at the first that refuses.
 */
export function filterReachSelector(args: Selection): CaseSelector {
  const reach = reachOf(args);
  return () => {
    reach.any = true;
    return true;
  };
}

/** Whether the run's --filter selected no case at all: a usage error (exit 2), never stored. */
export function filterSelectedNothing(args: Selection, summary: RunSummary): boolean {
  if (args.filter === undefined || summary.totals.cases > 0) return false;
  return !(args.shard && reachOf(args).any);
}

/** What a shard that holds none of the cases its --filter selects says; undefined otherwise. */
export function emptyShardNote(args: Selection, summary: RunSummary): string | undefined {
  if (args.filter === undefined || !args.shard || summary.totals.cases > 0) return undefined;
  if (!reachOf(args).any) return undefined;
  return `--filter "${args.filter}" selected no case of shard ${formatShard(args.shard)}: the cases it selects are in other shards`;
}
