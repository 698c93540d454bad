import { writeSync } from "node:fs";
import { compareRuns } from "../../compare/compare-runs.js";
import { formatComparison } from "../../compare/format.js";
import type { Comparison } from "../../compare/types.js";
import { safeStringify } from "../../json-safe.js";
import { resolveRunRef } from "../../store/resolve.js";
import type { Store } from "../../store/types.js";
import type { CompareArgs, CompareDecision } from "../args.js";
import type { UnmetGate } from "../gates.js";
import type { CliIO } from "../io.js";

/** `niceeval compare <base> <head>`: exit 1 only for a significant regression when asked. */
export async function compareCommand(args: CompareArgs, store: Store, io: CliIO): Promise<number> {
  const base = await resolveRunRef(store, args.base);
  const head = await resolveRunRef(store, args.head);
  const comparison = await compareWith(store, base.runId, head.runId, args);
  writeSync(
    io.stdoutFd,
    args.json ? `${safeStringify(comparison)}\n` : `${formatComparison(comparison)}\n`,
  );
  return regressionExit(comparison, args, io);
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
