import type { EvalSummary } from "../runner/events.js";
import type { RunSummary } from "../runner/run.js";
import type { LoadError } from "../runner/summary.js";
import { type Interval, meanInterval, wilsonInterval } from "../stats/interval.js";
import { formatNumber } from "./format.js";

/** A pass rate with its sample size and 95% Wilson interval. */
export interface PassRateFigure {
  /** passed / n; null when n is 0. */
  rate: number | null;
  passed: number;
  /** Attempts that reached a verdict other than skipped: skipped attempts are no evidence. */
  n: number;
  interval: Interval | null;
}

/** A mean score (earned/max per attempt) with its sample size and 95% CLT interval. */
export interface MeanScoreFigure {
  /** Null when no attempt had a score. */
  mean: number | null;
  /** Attempts whose score was complete or partial. */
  n: number;
  sd: number | null;
  /** Student's t interval of the mean (`method: "t"`, n - 1 degrees of freedom); null below n = 2. */
  interval: Interval | null;
  /** Attempts whose score was partial. */
  partial: number;
  /** True when any score was partial: the mean is then a lower bound. */
  lowerBound: boolean;
}

/** The figures of one eval, computed once and shown alike by every report. */
export interface EvalFigures {
  passRate: PassRateFigure;
  meanScore: MeanScoreFigure;
}

/** Pass rate of `passed` out of the attempts that were not skipped. */
export function passRateFigure(counts: {
  cases: number;
  passed: number;
  skipped: number;
}): PassRateFigure {
  const n = Math.max(0, counts.cases - counts.skipped);
  return {
    rate: n > 0 ? counts.passed / n : null,
    passed: counts.passed,
    n,
    interval: wilsonInterval(counts.passed, n),
  };
}

/** The mean score of an eval with its interval; partial scores make it a lower bound. */
export function meanScoreFigure(summary: EvalSummary): MeanScoreFigure {
  const mean = summary.meanScore;
  return {
    mean,
    n: summary.scoredCases,
    sd: summary.sdScore,
    interval:
      mean === null ? null : clamp(meanInterval(mean, summary.sdScore, summary.scoredCases)),
    partial: summary.partialCases,
    lowerBound: summary.partialCases > 0,
  };
}

// A score lies in [0, 1], so its mean does too; the normal approximation can overshoot.
const clamp = (interval: Interval | null): Interval | null =>
  interval && { ...interval, low: Math.max(0, interval.low), high: Math.min(1, interval.high) };

/** Both figures of an eval. */
export function evalFigures(summary: EvalSummary): EvalFigures {
  return { passRate: passRateFigure(summary), meanScore: meanScoreFigure(summary) };
}

const percent = (value: number) => `${formatNumber(100 * value, 1)}%`;

/** "80% of 10, 95% CI 49–94.3%" (or "no attempt to rate"). */
export function formatPassRate(figure: PassRateFigure): string {
  if (figure.rate === null) return "no attempt to rate";
  const ci = figure.interval;
  return `${percent(figure.rate)} of ${figure.n}${ci ? `, 95% CI ${formatNumber(100 * ci.low, 1)}–${percent(ci.high)}` : ""}`;
}

/** "≥ 0.71" for a lower bound, "0.71" otherwise, "n/a" without a score. */
export function formatMean(figure: MeanScoreFigure): string {
  if (figure.mean === null) return "n/a";
  return `${figure.lowerBound ? "≥ " : ""}${formatNumber(figure.mean)}`;
}

/** "≥ 0.71 ± 0.2 sd, 95% CI 0.6–0.82 (n=10, 2 partial)", or "n/a". */
export function formatMeanScore(figure: MeanScoreFigure): string {
  if (figure.mean === null) return "n/a";
  const sd = figure.sd !== null ? ` ± ${formatNumber(figure.sd)} sd` : "";
  const ci = figure.interval
    ? `, 95% CI ${formatNumber(figure.interval.low)}–${formatNumber(figure.interval.high)}`
    : "";
  const partial = figure.partial ? `, ${figure.partial} partial` : "";
  return `${formatMean(figure)}${sd}${ci} (n=${figure.n}${partial})`;
}

/** A run summary as the JSON reports write it: every eval and the totals carry their figures. */
export function summaryWithFigures(summary: RunSummary) {
  return {
    ...summary,
    totals: { ...summary.totals, figures: { passRate: passRateFigure(summary.totals) } },
    evals: summary.evals.map((e) => ({ ...e, figures: evalFigures(e) })),
  };
}

/** A run's load errors told apart: files that failed to load, and evals left out of files that loaded. */
export interface LoadTroubles {
  /** Errors of files that failed to load (none of their evals ran). */
  failed: readonly LoadError[];
  /** How many files those are. */
  files: number;
  /** Errors of evals left out of files that loaded (the others of those files ran). */
  leftOut: readonly LoadError[];
  /** How many evals those left out. */
  evals: number;
}

/** {@link LoadTroubles} of a run's load errors. */
export function loadTroubles(errors: readonly LoadError[]): LoadTroubles {
  const failed = errors.filter((error) => error.leftOut === undefined);
  const leftOut = errors.filter((error) => error.leftOut !== undefined);
  return {
    failed,
    files: new Set(failed.map((error) => error.file)).size,
    leftOut,
    evals: leftOut.reduce((count, error) => count + (error.leftOut?.length ?? 0), 0),
  };
}
