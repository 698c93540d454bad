import { writeSync } from "node:fs";
import { compareRuns } from "../../compare/compare-runs.js";
import { formatComparison } from "../../compare/format.js";
import type { Comparison } from "../../compare/types.js";
import { NiceevalError } from "../../errors.js";
import { safeStringify } from "../../json-safe.js";
import { runFilter } from "../../store/manifest.js";
import { latestShardNote, resolveRunRef } from "../../store/resolve.js";
import type { Store, StoredRun } from "../../store/types.js";
import type { CompareArgs, CompareDecision } from "../args.js";
import { findBaseline, partialBaselineNote, unknownBranch } from "../baseline.js";
import type { UnmetGate } from "../gates.js";
import type { CliIO } from "../io.js";

/**
 * `niceeval compare <base> <head>`: exit 1 only for a significant regression when asked. A base
 * `branch:NAME` with no run yet is a first run, as for `run --baseline`: nothing to compare, exit 0.
 */
export async function compareCommand(args: CompareArgs, store: Store, io: CliIO): Promise<number> {
  // A run named by reference first: `branch:NAME` is then looked up beside it.
  let base = byBranch(args.base) ? undefined : await named(store, args.base);
  const head = byBranch(args.head)
    ? await onBranch(store, args.head, base, io)
    : await named(store, args.head);
  if (!head) throw new NiceevalError("RUN_NOT_FOUND", nothingOnBranch(args.head, base));
  if (byBranch(args.base)) base = await onBranch(store, args.base, head, io);
  if (!base) return firstRun(store, args, head, io);
  for (const [ref, run] of [
    [args.base, base],
    [args.head, head],
  ] as const) {
    const note = latestShardNote(ref, run);
    if (note) io.stderr(note);
  }
  const comparison = await compareWith(store, base.runId, head.runId, args);
  writeSync(
    io.stdoutFd,
    args.json ? `${safeStringify(comparison)}\n` : `${formatComparison(comparison)}\n`,
  );
  return regressionExit(comparison, args, io);
}

const byBranch = (ref: string) => ref.startsWith("branch:");

/** A run named by reference; one that names no run also says that `branch:NAME` works here. */
async function named(store: Store, ref: string): Promise<StoredRun> {
  try {
    return await resolveRunRef(store, ref);
  } catch (error) {
    if (error instanceof NiceevalError && error.code === "RUN_NOT_FOUND")
      throw new NiceevalError(
        "RUN_NOT_FOUND",
        `${error.message} compare also takes branch:NAME: the latest finished run on that git branch holding the other run's evals (niceeval compare branch:main latest).`,
      );
    throw error;
  }
}

/**
 * The run `branch:NAME` names beside `other`: the latest finished run on that git branch that
 * holds every case of `other`, as `run --baseline branch:NAME` finds it, never `other` itself
 * (said on stderr when it is only the closest); with no other run (both runs named by branch),
 * the latest finished run there that is not a shard. Undefined when the branch has none.
 */
async function onBranch(
  store: Store,
  ref: string,
  other: StoredRun | undefined,
  io: CliIO,
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
    const note = partialBaselineNote(ref, run, evalIds, filter, { ref, head });
    if (note) io.stderr(note);
  }
  return run;
}

/** What to say of `branch:NAME` naming no run (beside `other`, when there is one). */
function nothingOnBranch(ref: string, other: StoredRun | undefined): string {
  const branch = ref.slice("branch:".length);
  const beside = other
    ? ` besides run ${other.runId.slice(0, 8)}${other.name !== undefined ? ` (${other.name})` : ""} holds any of its evals`
    : " that is not a shard";
  return `${ref}: no finished run on branch "${branch}"${beside}`;
}

/**
 * A base `branch:NAME` with no run yet: nothing to compare, exit 0, as a first run with
 * `--baseline` passes. A branch the store has no run on while a close name has some is most
 * likely misspelt: a regression gate is then not checked, and not passed (exit 1).
 */
async function firstRun(
  store: Store,
  args: CompareArgs,
  head: StoredRun,
  io: CliIO,
): Promise<number> {
  const likely = (await unknownBranch(store, args.base))?.likely;
  if (likely !== undefined) {
    io.stderr(
      `niceeval: ${nothingOnBranch(args.base, head)}, and the store has no run on that branch (did you mean branch:${likely}?): nothing compared\n`,
    );
    return args.failOnRegression || args.failOnNewFailures ? 1 : 0;
  }
  io.stderr(`niceeval: ${nothingOnBranch(args.base, head)} yet: nothing to compare\n`);
  return 0;
}

/** Compare two stored runs with the decision options of the command line. */
export function compareWith(
  store: Store,
  base: string,
  head: string,
  decision: CompareDecision,
): Promise<Comparison> {
  return compareRuns(store, base, head, {
    alpha: decision.alpha,
    seed: decision.seed,
    failOnNewFailures: decision.failOnNewFailures,
  });
}

/**
 * Why --fail-on-regression fails the run: a gate per reason of the comparison, named by the flag
 * and what regressed (`--fail-on-regression: pass rate`, `--fail-on-new-failures`), or none.
 */
export function regressionReasons(comparison: Comparison, decision: CompareDecision): UnmetGate[] {
  if (!decision.failOnRegression || !comparison.decision.regression) return [];
  const { reasons, checks } = comparison.decision;
  return reasons.map((reason, i) => {
    const check = checks[i] ?? reason;
    return {
      name: check === "new failures" ? "--fail-on-new-failures" : `--fail-on-regression: ${check}`,
      message: `regression: ${reason}`,
    };
  });
}

/** 1 when --fail-on-regression was given and the comparison found a regression, else 0. */
export function regressionExit(
  comparison: Comparison,
  decision: CompareDecision,
  io: CliIO,
): number {
  const reasons = regressionReasons(comparison, decision);
  for (const reason of reasons) io.stderr(`niceeval: ${reason.message}\n`);
  return reasons.length > 0 ? 1 : 0;
}
