import { plural } from "../plural.js";
import type { CaseAverage, FlakyCase, TrialSummary } from "../stats/trials.js";
import { formatNumber } from "./format.js";

// What the reports say of an eval's trials, in the same words wherever it is read: the console's
// trials line and the Markdown summary's (so the GitHub step summary's).

/**
 * "4 cases × 3 · pass@1 58.3% · … · per-case score mean 0.5, median 0.5, max 1": the cases and
 * trials, then each reducer over the trials judged (skipped ones and those a stop cut off aside).
 */
export function trialFigures(t: TrialSummary): string {
  const n = t.trials.min === t.trials.max ? `${t.trials.max}` : `${t.trials.min}–${t.trials.max}`;
  // The header counts every trial; the reducers only those judged: not skipped, not cut off by
  // the stop (a summary stored before `skipped` or `interrupted` was kept has none).
  const aside = [
    ...(t.skipped > 0 ? [`${t.skipped} skipped`] : []),
    ...(t.interrupted ? [`${t.interrupted} cut off by the stop`] : []),
  ];
  const judged = aside.length > 0 ? ` judged, ${aside.join(", ")}` : "";
  const reducers = [
    ...t.byK.map((r) => `pass@${r.k} ${rate(r.passAtK)}`),
    ...t.byK.filter((r) => r.k > 1).map((r) => `pass^${r.k} ${rate(r.passHatK)}`),
    ...t.byK.filter((r) => r.k > 1).map((r) => `at-least-${r.k} ${rate(r.atLeastK)}`),
  ];
  const score =
    t.score.mean.value === null
      ? ""
      : ` · per-case score mean ${formatNumber(t.score.mean.value)}, median ${formatNumber(t.score.median.value!)}, max ${formatNumber(t.score.max.value!)}`;
  // No judged case (every trial skipped) has no reducer to show.
  return `${plural(t.cases, "case")} × ${n}${judged}${reducers.map((r) => ` · ${r}`).join("")}${score}`;
}

/** "2 flaky cases", or "no flaky case". */
export const flakyCount = (t: TrialSummary): string =>
  t.flaky.count > 0 ? plural(t.flaky.count, "flaky case") : "no flaky case";

/** "2/3 passed": how many of a flaky case's trials passed. */
export const flakyPassed = (f: FlakyCase): string => `${f.passed}/${f.trials} passed`;

/** A share as a percentage, "n/a" when no case has it. */
function rate(average: CaseAverage): string {
  return average.value === null ? "n/a" : `${formatNumber(100 * average.value, 1)}%`;
}
