import { joinWords, plural } from "../plural.js";
import type { RunSummary } from "../runner/summary.js";

/** Evals named in full before the rest are counted. */
const NAMED = 3;

/**
 * What a stopped run left undone, in words every report shares: the attempts its stop cut off
 * (errored, out of the pass rate) and those that did not start, "8 attempts cut off by the stop
 * (errored, left out of the pass rate) · 13 attempts did not start, nor did the cases of eval
 * "qa" not yet read". Attempts whose records say the stop came before they started (a queue job
 * no worker took) are counted apart from those it cut off, and so are a continuation's errored
 * attempts the stop came before it ran again ("7 errored attempts not run again"). A summary read back from a store does
 * not know the attempts that did not start, and says only that they did not run.
 */
export function stoppedWords(summary: Pick<RunSummary, "totals" | "stopped">): string {
  const parts = erroredByStop(summary);
  const stopped = summary.stopped;
  if (!stopped) parts.push("cases that had not started did not run");
  else {
    const unread =
      stopped.unread.length > 0 ? `cases of ${evalsNamed(stopped.unread)} not yet read` : "";
    if (stopped.notStarted > 0)
      parts.push(
        `${plural(stopped.notStarted, "attempt")} did not start${unread ? `, nor did the ${unread}` : ""}`,
      );
    else if (unread) parts.push(`the ${unread} did not run`);
    // Nothing read was left: a stop while the eval files loaded ran no case at all.
    else if (!stopped.beforeStart && !stopped.notRunAgain)
      parts.push(summary.totals.cases > 0 ? "every attempt had started" : "no case ran");
    if (stopped.notRunAgain)
      parts.push(
        `${plural(stopped.notRunAgain, "errored attempt")} not run again (${stopped.notRunAgain === 1 ? "it keeps its" : "they keep their"} stored error)`,
      );
  }
  return parts.join(" · ");
}

/** "2 attempts cut off by the stop and 6 stopped before they started (errored, …)", or either. */
function erroredByStop(summary: Pick<RunSummary, "totals" | "stopped">): string[] {
  const before = summary.stopped?.beforeStart ?? 0;
  // An attempt an earlier stop cut off, not run again, is said among those not run again.
  const cut = (summary.totals.interrupted ?? 0) - before - (summary.stopped?.earlierCut ?? 0);
  const said = [
    ...(cut > 0 ? [`${plural(cut, "attempt")} cut off by the stop`] : []),
    ...(before > 0
      ? [`${cut > 0 ? before : plural(before, "attempt")} stopped before they started`]
      : []),
  ];
  return said.length > 0 ? [`${said.join(" and ")} (errored, left out of the pass rate)`] : [];
}

/** `eval "a"`, `evals "a" and "b"`, `evals "a", "b", "c" and 2 more`. */
function evalsNamed(ids: readonly string[]): string {
  const named = ids.slice(0, NAMED).map((id) => `"${id}"`);
  const rest = ids.length - named.length;
  return `${ids.length === 1 ? "eval" : "evals"} ${rest > 0 ? `${named.join(", ")} and ${rest} more` : joinWords(named)}`;
}
