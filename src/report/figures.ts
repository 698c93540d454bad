import type { AppUsageField, AppUsageTotals } from "../eval/app-usage-totals.js";
import { plural } from "../plural.js";
import type { EvalSummary } from "../runner/events.js";
import type { RunSummary } from "../runner/run.js";
import {
  judgedAttempts,
  passRateInterval,
  pooledScoreSums,
  runCases,
  runShareSums,
  type ShareSums,
  scoreMeanInterval,
} from "../stats/clustered.js";
import type { Interval } from "../stats/interval.js";
import { formatNumber } from "./format.js";

/** A pass rate with its sample size and 95% Wilson interval. */
export interface PassRateFigure {
  /** passed / n; null when n is 0. */
  rate: number | null;
  passed: number;
  /**
   * Attempts that were judged: skipped attempts are no evidence, nor are those the run's stop cut
   * off (`interrupted`).
   */
  n: number;
  /**
   * Errored attempts the run's stop cut off, left out of `n`: they were not judged, and missing
   * evidence is never a failure. Absent when there were none.
   */
  interrupted?: number;
  /**
   * With trials: the cases those attempts are trials of. The interval then counts cases, since
   * the trials of one case are not independent: Wilson's with the effective number of cases the
   * spread of their pass shares is worth, the interval pass@1 has (src/stats/clustered.ts).
   */
  cases?: number;
  interval: Interval | null;
}

/** A mean score (earned/max per attempt) with its sample size and 95% t interval. */
export interface MeanScoreFigure {
  /** Null when no attempt had a score. */
  mean: number | null;
  /** Attempts whose score was complete or partial. */
  n: number;
  /**
   * With trials: the cases those attempts are trials of, which the interval counts (from the
   * spread of the case means, src/stats/clustered.ts).
   */
  cases?: number;
  /** The attempts' sample standard deviation; null for a lower bound (`lowerBound`). */
  sd: number | null;
  /**
   * Student's t interval of the mean (`method: "t"`); null below 2 (cases, with trials), when
   * the scores (the case means, with trials) are all equal, where it would have no width, and for
   * a lower bound, whose partial scores count missing points as 0.
   */
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

/**
 * Pass rate of `passed` out of the attempts that were judged, neither skipped nor cut off by the
 * run's stop (`counts.cases` counts attempts); `cases`, with trials, the cases they are trials
 * of, and `sums` their per-case counts.
 */
export function passRateFigure(
  counts: { cases: number; passed: number; skipped: number; interrupted?: number | undefined },
  cases?: number,
  sums?: ShareSums,
): PassRateFigure {
  const n = Math.max(0, judgedAttempts(counts));
  const grouped = cases !== undefined && cases < n;
  const interrupted = counts.interrupted ?? 0;
  return {
    rate: n > 0 ? counts.passed / n : null,
    passed: counts.passed,
    n,
    ...(interrupted > 0 ? { interrupted } : {}),
    ...(grouped ? { cases } : {}),
    interval: passRateInterval(counts.passed, n, cases, sums),
  };
}

/** The mean score of an eval with its interval; partial scores make it a lower bound. */
export function meanScoreFigure(summary: EvalSummary): MeanScoreFigure {
  const mean = summary.meanScore;
  // The cases the scores came from: a case whose every trial errored has none.
  const cases = summary.trials?.scoredCases;
  const grouped = cases !== undefined && cases < summary.scoredCases;
  // A partial score counts the points it lacks evidence for as 0: an sd and an interval over such
  // scores would describe that 0, not the scores (a mean that the missing points could lift past
  // the interval's top), so a lower bound has neither.
  const lowerBound = summary.partialCases > 0;
  return {
    mean,
    n: summary.scoredCases,
    ...(grouped ? { cases } : {}),
    sd: lowerBound ? null : summary.sdScore,
    interval:
      mean === null || lowerBound
        ? null
        : scoreMeanInterval(
            mean,
            summary.sdScore,
            summary.scoredCases,
            cases,
            summary.trials?.spread?.scores,
          ),
    partial: summary.partialCases,
    lowerBound,
  };
}

/** Both figures of an eval. */
export function evalFigures(summary: EvalSummary): EvalFigures {
  return {
    passRate: passRateFigure(summary, summary.trials?.cases, summary.trials?.spread?.passed),
    meanScore: meanScoreFigure(summary),
  };
}

/**
 * The run's mean score over every eval's scored attempts, from its evals' summaries: one eval's
 * own figure; for several, their attempts pooled (the sum of squares within each eval and between
 * their means), so without trials the interval is the one of all the scores as one sample, and with
 * trials the cluster-robust one over the cases, each eval's per-case sums pooled around the run's
 * mean (an eval without trials: each score a case), as an eval's own; the cautious one the pooled
 * counts allow when an eval's summary was stored without those sums. A lower bound when any score
 * was partial, with no interval.
 */
export function runMeanScoreFigure(evals: readonly EvalSummary[]): MeanScoreFigure {
  const scored = evals.filter((s) => s.meanScore !== null && s.scoredCases > 0);
  if (scored.length === 1) return meanScoreFigure(scored[0]!);
  const partial = evals.reduce((sum, s) => sum + s.partialCases, 0);
  const n = scored.reduce((sum, s) => sum + s.scoredCases, 0);
  if (n === 0) return { mean: null, n: 0, sd: null, interval: null, partial, lowerBound: false };
  const mean = scored.reduce((sum, s) => sum + s.scoredCases * s.meanScore!, 0) / n;
  const squares = scored.reduce(
    (sum, s) =>
      sum +
      (s.scoredCases - 1) * (s.sdScore ?? 0) ** 2 +
      s.scoredCases * (s.meanScore! - mean) ** 2,
    0,
  );
  const sd = n > 1 ? Math.sqrt(squares / (n - 1)) : null;
  const withTrials = scored.some((s) => s.trials);
  const cases = withTrials
    ? scored.reduce((sum, s) => sum + (s.trials?.scoredCases ?? s.scoredCases), 0)
    : undefined;
  const grouped = cases !== undefined && cases < n;
  const lowerBound = partial > 0;
  const sums = grouped
    ? pooledScoreSums(
        scored.map((s) => ({
          mean: s.meanScore!,
          n: s.scoredCases,
          sd: s.sdScore,
          sums: s.trials ? (s.trials.spread?.scores ?? null) : undefined,
        })),
        mean,
      )
    : undefined;
  return {
    mean,
    n,
    ...(grouped ? { cases } : {}),
    sd: lowerBound ? null : sd,
    interval: lowerBound ? null : scoreMeanInterval(mean, sd, n, cases, sums),
    partial,
    lowerBound,
  };
}

/** The run's pass rate: over cases when any eval ran trials (see {@link passRateFigure}). */
export function runPassRateFigure(summary: Pick<RunSummary, "totals" | "evals">): PassRateFigure {
  return passRateFigure(summary.totals, runCases(summary.evals), runShareSums(summary.evals));
}

const percent = (value: number) => `${formatNumber(100 * value, 1)}%`;

/**
 * " over 4 cases" when the figure's interval counts cases (with trials) rather than the n beside
 * it, said with the interval it qualifies; "" otherwise.
 */
export function intervalOver(figure: { cases?: number; interval: Interval | null }): string {
  return figure.cases !== undefined && figure.interval
    ? ` over ${plural(figure.cases, "case")}`
    : "";
}

/** "80% of 10, 95% CI 49–94.3%" (or "no attempt to rate"). */
export function formatPassRate(figure: PassRateFigure): string {
  if (figure.rate === null) return "no attempt to rate";
  const ci = figure.interval;
  return `${percent(figure.rate)} of ${figure.n}${ci ? `, 95% CI ${formatNumber(100 * ci.low, 1)}–${percent(ci.high)}${intervalOver(figure)}` : ""}`;
}

/** "≥ 0.71" for a lower bound, "0.71" otherwise, "n/a" without a score. */
export function formatMean(figure: MeanScoreFigure): string {
  if (figure.mean === null) return "n/a";
  return `${figure.lowerBound ? "≥ " : ""}${formatNumber(figure.mean)}`;
}

/** "0.71 ± 0.2 sd, 95% CI 0.6–0.82 (n=10)", "≥ 0.71 (n=10, 2 partial: a lower bound, no interval)", or "n/a". */
export function formatMeanScore(figure: MeanScoreFigure): string {
  if (figure.mean === null) return "n/a";
  const sd = figure.sd !== null ? ` ± ${formatNumber(figure.sd)} sd` : "";
  const ci = figure.interval
    ? `, 95% CI ${formatNumber(figure.interval.low)}–${formatNumber(figure.interval.high)}`
    : "";
  const partial = figure.partial ? `, ${figure.partial} partial: a lower bound, no interval` : "";
  return `${formatMean(figure)}${sd}${ci} (n=${figure.n}${intervalOver(figure)}${partial})`;
}

/**
 * The application's usage totals in words, as every report shows them: "4 of 4 attempts reported
 * usage · 8000 in / 4000 out / 12000 total tokens · $1". An attempt that reported nothing is in no
 * sum ("3 of 4 attempts reported usage (1 unreported)"); a sum that leaves out attempts which
 * reported usage without that field says over how many it is ("$0.5 (2 of 3)"), and a field none
 * reported is not shown. Undefined when no attempt reported usage: nothing is claimed.
 */
export function formatAppUsage(usage: AppUsageTotals | undefined): string | undefined {
  if (!usage || usage.reported === 0) return undefined;
  const { reported, unreported } = usage;
  const over = (field: AppUsageField) => {
    const missing = usage.missing?.[field] ?? 0;
    return missing > 0 ? ` (${reported - missing} of ${reported})` : "";
  };
  const tokens = (["inputTokens", "outputTokens", "totalTokens"] as const)
    .filter((field) => usage[field] !== undefined)
    .map((field) => `${usage[field]} ${TOKEN_WORDS[field]}${over(field)}`);
  const parts = [
    `${reported} of ${plural(reported + unreported, "attempt")} reported usage${unreported > 0 ? ` (${unreported} unreported)` : ""}`,
  ];
  if (tokens.length > 0) parts.push(`${tokens.join(" / ")} tokens`);
  if (usage.costUsd !== undefined)
    parts.push(`$${formatNumber(usage.costUsd, 6)}${over("costUsd")}`);
  return parts.join(" · ");
}

const TOKEN_WORDS = { inputTokens: "in", outputTokens: "out", totalTokens: "total" } as const;

/**
 * An eval's summary as the JSON reports write it: `attempts` beside `cases`, which counts attempts
 * too (a case run k times counts k; the cases are `trials.cases`), and its figures.
 */
export function evalSummaryWithFigures(summary: EvalSummary) {
  const { evalId, style, cases, ...rest } = summary;
  return { evalId, style, cases, attempts: cases, ...rest, figures: evalFigures(summary) };
}

/**
 * A run summary as the JSON reports write it: every eval and the totals carry their figures, and
 * `attempts` beside their `cases`, which count attempts.
 */
export function summaryWithFigures(summary: RunSummary) {
  const { evals, cases, ...counts } = summary.totals;
  return {
    ...summary,
    totals: {
      evals,
      cases,
      attempts: cases,
      ...counts,
      figures: { passRate: runPassRateFigure(summary) },
    },
    evals: summary.evals.map(evalSummaryWithFigures),
  };
}
