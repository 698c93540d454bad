import { type Interval, meanInterval, wilsonInterval } from "./interval.js";

// The trials of one case are not independent draws: a case that passes once mostly passes again.
// Counting every attempt as a draw would narrow an interval as if 30 cases run twice were 60
// cases. With trials, the intervals below count cases instead (each case weighs what its trials
// do), which is exact when a case's trials always agree and on the safe side when they do not.

/** Whether `cases` groups the `n` attempts of a figure into fewer units. */
const grouped = (n: number, cases: number | undefined): cases is number =>
  cases !== undefined && cases > 0 && cases < n;

/**
 * The 95% Wilson interval of `passed` out of `n` attempts; over `cases` units when the attempts
 * are the trials of that many cases.
 */
export function passRateInterval(passed: number, n: number, cases?: number): Interval | null {
  return grouped(n, cases)
    ? wilsonInterval((passed / n) * cases, cases)
    : wilsonInterval(passed, n);
}

/**
 * The 95% Student's t interval of a mean score over `n` attempts (their `sd`), kept in [0, 1]
 * where scores live; over `cases` units when the attempts are the trials of that many cases.
 */
export function scoreMeanInterval(
  mean: number,
  sd: number | null,
  n: number,
  cases?: number,
): Interval | null {
  const interval = meanInterval(mean, sd, grouped(n, cases) ? cases : n);
  return (
    interval && { ...interval, low: Math.max(0, interval.low), high: Math.min(1, interval.high) }
  );
}

/**
 * The cases a run's attempts are trials of, when any of its evals ran several trials: each
 * eval's cases (those with a trial not skipped), or its attempts when it ran one trial each.
 * Undefined without trials.
 */
export function runCases(
  evals: readonly { cases: number; skipped: number; trials?: { cases: number } }[],
): number | undefined {
  if (!evals.some((e) => e.trials)) return undefined;
  return evals.reduce((sum, e) => sum + (e.trials?.cases ?? e.cases - e.skipped), 0);
}
