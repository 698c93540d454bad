import { type Interval, meanInterval, wilsonInterval } from "./interval.js";

// The trials of one case are not independent draws: a case that passes once mostly passes again.
// Counting every attempt as a draw would narrow an interval as if 30 cases run twice were 60
// cases. With trials, the intervals below count cases instead (each case weighs what its trials
// do), which is exact when a case's trials always agree and on the safe side when they do not.
// A mean's spread is then that of the case means: from the attempts' sd, the spread within cases
// is taken as nil, which gives it exactly when trials agree and an upper bound otherwise, as long
// as every case has as many scored trials (the attempts' sum of squares is then the cases' times
// the trials, plus what varies within cases); with uneven counts it is an approximation.

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
  const interval = grouped(n, cases)
    ? meanInterval(mean, caseMeansSd(sd, n, cases), cases)
    : meanInterval(mean, sd, n);
  return (
    interval && { ...interval, low: Math.max(0, interval.low), high: Math.min(1, interval.high) }
  );
}

/**
 * The sd of `cases` case means from the sd of their `n` attempts (n / cases trials each, on
 * average), as if each case's trials agreed: with m cases of k trials, the attempts' sum of squares
 * holds k times the case means' when nothing varies within a case, so
 * s_cases² = s² (n - 1) / (k (m - 1)).
 */
function caseMeansSd(sd: number | null, n: number, cases: number): number | null {
  if (sd === null || cases < 2) return sd;
  return sd * Math.sqrt(((n - 1) * cases) / (n * (cases - 1)));
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
