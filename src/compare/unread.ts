import { plural } from "../plural.js";
import type { UnreadCases } from "../runner/events.js";
import type { CaseAgg } from "./collect.js";
import type { ComparabilityWarning, EvalComparison, RegressionDecision } from "./types.js";

// An eval whose dataset could not be read whole in a run (its `(cases)` attempt): the cases it
// did not read are missing from that run, which the comparison must not take for a dataset change.

/** What a reason or warning says of where a run's reading of an eval's dataset stopped. */
const stopped = (unread: UnreadCases) =>
  `reading stopped after ${plural(unread.afterCases, "case")} (${unread.message})`;

/**
 * A warning per eval whose dataset the base run could not read whole: the cases it did not read
 * count as added, not as changes. The head's are findings of the decision
 * ({@link addUnreadFindings}).
 */
export function unreadWarnings(base: ReadonlyMap<string, UnreadCases>): ComparabilityWarning[] {
  return [...base].map(([evalId, cases]) => ({
    evalId,
    kind: "unread",
    base: "unread",
    head: "read",
    message: `eval "${evalId}": the base run did not read its dataset whole, ${stopped(cases)}: the cases it did not read count as added, not as changes`,
  }));
}

/**
 * Base cases of an eval the head run did not compare (none of its attempts in head): those its
 * unread dataset never gave, or all of them when the head has no case of the eval left.
 */
export function notCompared(
  evalId: string,
  evals: readonly EvalComparison[],
  baseCases: ReadonlyMap<string, ReadonlyMap<string, CaseAgg>>,
): number {
  const compared = evals.find((e) => e.evalId === evalId);
  return compared ? compared.transitions.removed : (baseCases.get(evalId)?.size ?? 0);
}

/**
 * A finding of the decision (check `dataset`) per eval whose dataset the head run could not read
 * whole: a regression among the cases it never ran cannot be ruled out, so no regression gate
 * passes (nor `new failures`, when asked for). `removed` gives the base cases left uncompared.
 * When the base run did not read that dataset whole either and every case it has was compared
 * (both stopped at the same place: a run compared with itself), the cases the head never ran were
 * never run in the base either, so none of them can have regressed: no finding.
 */
export function addUnreadFindings(
  decision: RegressionDecision,
  unread: { base: ReadonlyMap<string, UnreadCases>; head: ReadonlyMap<string, UnreadCases> },
  removed: (evalId: string) => number,
): void {
  const head = new Map(
    [...unread.head].filter(([evalId]) => !(unread.base.has(evalId) && removed(evalId) === 0)),
  );
  for (const [evalId, cases] of head) {
    const left = removed(evalId);
    const uncompared =
      left === 0 ? "" : `; ${plural(left, "case")} of the base run were not compared`;
    decision.checks.push("dataset");
    decision.reasons.push(
      `eval "${evalId}": the head run did not read its dataset whole, ${stopped(cases)}${uncompared}, so a regression among the cases it never ran cannot be ruled out; fix the dataset and run again`,
    );
    decision.regression = true;
  }
  // A new failure among the cases the head never ran cannot be ruled out either.
  if (head.size > 0 && decision.failOnNewFailures && !decision.checks.includes("new failures")) {
    decision.checks.push("new failures");
    decision.reasons.push(
      `no new failure can be ruled out among the cases the head run never ran (${[...head.keys()].map((id) => `eval "${id}"`).join(", ")}: dataset not read whole)`,
    );
  }
}
