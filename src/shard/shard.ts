import { createHash } from "node:crypto";
import { NiceevalError } from "../errors.js";
import type { CaseSelector } from "../runner/source.js";

/** One shard of a run: `index` of `count`, 1-based like Vitest's `--shard`. */
export interface Shard {
  index: number;
  count: number;
}

/** Most shards a run can be split into. */
export const MAX_SHARDS = 10_000;

/**
 * Parse `--shard i/n`. Throws a `USAGE` NiceevalError naming the value for anything but two
 * whole numbers with 1 ≤ i ≤ n ≤ {@link MAX_SHARDS}.
 *
 * @example
 * parseShard("2/4"); // { index: 2, count: 4 }
 */
export function parseShard(text: string): Shard {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = match ? Number(match[1]) : Number.NaN;
  const count = match ? Number(match[2]) : Number.NaN;
  if (!match || count < 1 || count > MAX_SHARDS || index < 1 || index > count) {
    const why = !match
      ? "two whole numbers i/n"
      : count < 1 || count > MAX_SHARDS
        ? `a count n from 1 to ${MAX_SHARDS}`
        : `an index i from 1 to ${count}`;
    throw new NiceevalError(
      "USAGE",
      `--shard must be i/n with 1 ≤ i ≤ n (e.g. --shard 1/4), got "${text}": it needs ${why}. Run \`niceeval --help\`.`,
    );
  }
  return { index, count };
}

/**
 * The shard (1-based) a case belongs to among `count`: a hash of its eval id and case id, so it
 * never depends on the files, the order of cases or the other cases, and every trial of a case
 * lands in the same shard.
 */
export function shardOf(evalId: string, caseId: string, count: number): number {
  if (count <= 1) return 1;
  // The length prefix keeps ("a/b", "c") and ("a", "b/c") apart.
  const digest = createHash("sha256").update(`${evalId.length}:${evalId}/${caseId}`).digest();
  // 48 bits: the modulo's bias is below 2⁻³² for any count ≤ MAX_SHARDS.
  return (digest.readUIntBE(0, 6) % count) + 1;
}

/**
 * The selector of a shard: keeps the attempts of the cases that {@link shardOf} puts in it.
 *
 * @example
 * runEvals(entries, { select: [shardSelector({ index: 1, count: 4 })] });
 */
export function shardSelector(shard: Shard): CaseSelector {
  // The trials of a case are asked one after another: remember the last answer.
  let lastEval: string | undefined;
  let lastCase: string | undefined;
  let lastKeep = false;
  return (evalId, caseId) => {
    if (evalId !== lastEval || caseId !== lastCase) {
      lastEval = evalId;
      lastCase = caseId;
      lastKeep = shardOf(evalId, caseId, shard.count) === shard.index;
    }
    return lastKeep;
  };
}

/** `2/4`, as the user writes it. */
export const formatShard = (shard: Shard): string => `${shard.index}/${shard.count}`;
