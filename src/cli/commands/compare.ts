import { writeSync } from "node:fs";
import { compareRunsFor, regressionCheckNames } from "../../compare/compare-runs.js";
import { formatComparison } from "../../compare/format.js";
import type { Comparison } from "../../compare/types.js";
import { safeStringify } from "../../json-safe.js";
import type { Store, StoredRun } from "../../store/types.js";
import type { CompareArgs, CompareDecision } from "../args.js";
import { unknownBranch } from "../baseline.js";
import { storeWords } from "../command-words.js";
import { findComparedRuns, nothingOnBranch } from "../compared-runs.js";
import type { UnmetGate } from "../gates.js";
import type { CliIO } from "../io.js";
import { latestShardNote } from "../shard-command.js";

/**
 * `niceeval compare <base> <head>`: exit 1 only for a significant regression when asked. A base
 * `branch:NAME` with no run yet is a first run, as for `run --baseline`: nothing to compare, exit 0.
 */
export async function compareCommand(args: CompareArgs, store: Store, io: CliIO): Promise<number> {
  const { base, head } = await findComparedRuns(store, args.base, args.head, io.stderr);
  if (!base) return firstRun(store, args, head, io);
  for (const [ref, run] of [
    [args.base, base],
    [args.head, head],
  ] as const) {
    const note = await latestShardNote(store, ref, run, args.store);
    if (note) io.stderr(note);
  }
  const comparison = await compareWith(store, base.runId, head.runId, args);
  writeSync(
    io.stdoutFd,
    args.json
      ? `${safeStringify(comparison)}\n`
      : `${formatComparison(comparison)}\nview it: \`${viewCommand(base, head, args.store)}\`\n`,
  );
  return regressionExit(comparison, args, io);
}

/**
 * The `niceeval view` that opens on this comparison, its runs by id, with the `--store` it was
 * given (a PostgreSQL URL's password masked: storeWords).
 */
function viewCommand(base: StoredRun, head: StoredRun, store: string | undefined): string {
  return [
    "niceeval view --base",
    base.runId.slice(0, 8),
    "--head",
    head.runId.slice(0, 8),
    ...storeWords(store),
  ].join(" ");
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

/**
 * Compare two stored runs with the decision options of the command line; the commands its
 * warnings suggest repeat the command's `--store`.
 */
export function compareWith(
  store: Store,
  base: string,
  head: string,
  decision: CompareDecision & { store?: string | undefined },
): Promise<Comparison> {
  return compareRunsFor(decision.store, store, base, head, {
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
  return reasons.map((reason, i) => ({
    name: regressionGateName(checks[i] ?? reason),
    message: `regression: ${reason}`,
  }));
}

/**
 * The names of every check --fail-on-regression makes on this comparison, found or not, as
 * {@link regressionReasons} names those found; none without the flag.
 */
export function regressionGates(comparison: Comparison, decision: CompareDecision): string[] {
  if (!decision.failOnRegression) return [];
  const evalIds = comparison.evals.map((e) => e.evalId);
  return regressionCheckNames(evalIds, decision.failOnNewFailures).map(regressionGateName);
}

const regressionGateName = (check: string): string =>
  check === "new failures" ? "--fail-on-new-failures" : `--fail-on-regression: ${check}`;

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
