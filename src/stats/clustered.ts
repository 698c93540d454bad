import { type Interval, meanInterval, t975, wilsonInterval } from "./interval.js";

// The trials of one case are not independent draws: a case that passes once mostly passes again.
// Counting every attempt as a draw would narrow an interval as if 30 cases run twice were 60
// cases. With trials, the intervals below count cases: a figure over attempts (a pass rate, a mean
// score) is a ratio of per-case sums, and its variance is the cluster-robust (Liang–Zeger) one of
// those sums, as `compare` uses, with the G/(G − 1) factor and G − 1 degrees of freedom. When every
// case has as many trials, that is exactly the variance of the case means over the number of
// cases, so the pass rate's interval is the one of its per-case pass shares (pass@1's) and the
// mean score's the one of its case means (the trials' per-case mean's, when every score is
// complete). Each figure therefore has one interval, wherever it is shown.
//
// A mean score's interval is Student's t. A share's (a pass rate, pass@k, pass^k) is Wilson's with
// the effective number of draws that variance is worth, p(1 − p)/variance, at most the attempts
// (a design effect under 1 is taken as 1), scaled by (t(attempts − 1) / t(cases − 1))² for the
// degrees of freedom of a variance estimated from the cases (Korn & Graubard 1998): in the middle
// it is the t interval of the per-case shares, and near 0% and 100%, where a symmetric interval
// claims certainty a few flaky cases do not give, it keeps Wilson's honest width. It never counts
// fewer draws than cases: Wilson's over the cases, each case one draw, bounds the spread of shares
// in [0, 1] and is exact when every case's trials agree, so trials that agree never widen the
// interval the same cases run once would have. A share of 0 or 1 (every trial agreed), and a share
// of one case, is Wilson's over the cases.
//
// A summary stored before the per-case sums were kept (`CaseSpread`) has only the counts: its
// intervals are then the cautious ones those allow, Wilson's over the cases for a pass rate and
// the attempts' sd over the cases for a mean score, exact when a case's trials always agree and
// wider otherwise.

/** Per-case counts of a share over cases: each case with `c` of its `n` units passing. */
export interface ShareSums {
  /** Cases with a unit (a judged trial). */
  cases: number;
  /** Σn: units (judged trials). */
  n: number;
  /** Σc: passing units. */
  c: number;
  /** Σc². */
  cc: number;
  /** Σc·n. */
  cn: number;
  /** Σn². */
  nn: number;
}

/** Per-case sums of a mean score over cases: each case with `n` scores (earned/max) summing to `s`. */
export interface ScoreSums {
  /** Cases with a score. */
  cases: number;
  /** Σn: the scores (attempts scored complete or partial). */
  n: number;
  /** Σ(s − n·mean)², around the mean of every score (Σs / Σn). */
  residuals: number;
  /**
   * Σn·(s − n·mean) and Σn², which move `residuals` to another mean (a run's, pooling evals):
   * a summary stored by an earlier niceeval has neither.
   */
  cross?: number;
  sizes?: number;
}

/**
 * What an eval's intervals over cases need of its cases, kept in its trial summary: the sums of
 * the pass rate's share (`passed`: each case's passing trials of its judged ones) and of the mean
 * score (`scores`: each case's scored trials).
 */
export interface CaseSpread {
  passed: ShareSums;
  scores: ScoreSums;
}

/** No case yet. */
export const emptyShareSums = (): ShareSums => ({ cases: 0, n: 0, c: 0, cc: 0, cn: 0, nn: 0 });

/** Adds a case with `c` of its `n` units passing (a case with no unit adds nothing). */
export function addShareCase(sums: ShareSums, c: number, n: number): void {
  if (!(n > 0)) return;
  sums.cases++;
  sums.n += n;
  sums.c += c;
  sums.cc += c * c;
  sums.cn += c * n;
  sums.nn += n * n;
}

/**
 * Folds cases into a {@link CaseSpread}. The scores are summed shifted by the first case's mean,
 * so that scores alike but for rounding leave residuals of rounding, not of their size.
 */
export class CaseSpreadFold {
  private readonly passed = emptyShareSums();
  private scoredCases = 0;
  private shift: number | undefined;
  private units = 0;
  private sum = 0;
  private squares = 0;
  private products = 0;
  private sizes = 0;

  /** A case: `passed` of its `judged` trials passed; its `scored` scores sum to `scoreSum`. */
  addCase(passed: number, judged: number, scoreSum: number, scored: number): void {
    addShareCase(this.passed, passed, judged);
    if (!(scored > 0)) return;
    this.shift ??= scoreSum / scored;
    const d = scoreSum - this.shift * scored;
    this.scoredCases++;
    this.units += scored;
    this.sum += d;
    this.squares += d * d;
    this.products += d * scored;
    this.sizes += scored * scored;
  }

  result(): CaseSpread {
    // Σ(s − n·mean)² = Σ(d − δn)² with d = s − shift·n and δ = mean − shift = Σd / Σn.
    const delta = this.units > 0 ? this.sum / this.units : 0;
    const residuals = this.squares - 2 * delta * this.products + delta * delta * this.sizes;
    return {
      passed: { ...this.passed },
      scores: {
        cases: this.scoredCases,
        n: this.units,
        residuals: Math.max(0, residuals),
        // Σn(s − n·mean) = Σn(d − δn).
        cross: this.products - delta * this.sizes,
        sizes: this.sizes,
      },
    };
  }
}

/** Whether `cases` groups the `n` attempts of a figure into fewer units. */
const grouped = (n: number, cases: number | undefined): cases is number =>
  cases !== undefined && cases > 0 && cases < n;

/**
 * The 95% interval of a share (a mean of values in [0, 1]) of `cases` cases holding `units` units,
 * whose estimated variance is `variance`: Wilson's with the effective number of draws, from the
 * cases to the units (see the top of this file). Wilson's over the units when each case is one
 * unit, over the cases at a share of 0 or 1 or below two cases. Null without a unit.
 */
export function shareInterval(
  share: number,
  variance: number,
  units: number,
  cases: number,
): Interval | null {
  if (!(units > 0)) return null;
  if (cases >= units) return wilsonInterval(share * units, units);
  if (cases < 2 || share <= 0 || share >= 1) return wilsonInterval(share * cases, cases);
  const spread = share * (1 - share);
  const draws = variance > 0 ? Math.min(units, spread / variance) : units;
  const effective = Math.max(cases, draws * (t975(units - 1) / t975(cases - 1)) ** 2);
  return wilsonInterval(share * effective, effective);
}

/**
 * The cluster-robust variance of a ratio of per-case sums over `units` units in `cases` cases,
 * from the sum of the cases' squared residuals: G/(G − 1) · Σr² / N².
 */
const clusterVariance = (residuals: number, units: number, cases: number): number =>
  ((cases / (cases - 1)) * residuals) / (units * units);

/**
 * The 95% interval of `passed` out of `n` attempts: Wilson's, over `cases` units when the attempts
 * are the trials of that many cases, then from `sums`, the per-case counts of those attempts (see
 * the top of this file), or, without them, Wilson's over the cases.
 */
export function passRateInterval(
  passed: number,
  n: number,
  cases?: number,
  sums?: ShareSums,
): Interval | null {
  if (!grouped(n, cases)) return wilsonInterval(passed, n);
  // Sums of other attempts than the counts' (a summary that does not cover them) are not used.
  if (!sums || sums.cases !== cases || sums.n !== n || sums.c !== passed)
    return wilsonInterval((passed / n) * cases, cases);
  const share = passed / n;
  const residuals = Math.max(0, sums.cc - 2 * share * sums.cn + share * share * sums.nn);
  return shareInterval(share, clusterVariance(residuals, n, cases), n, cases);
}

/**
 * The 95% Student's t interval of a mean score over `n` attempts (their `sd`), kept in [0, 1]
 * where scores live; over `cases` units when the attempts are the trials of that many cases, then
 * from `sums`, the per-case sums of those scores: t with cases − 1 degrees of freedom of their
 * cluster-robust standard error, the case means' sd over √cases when every case has as many
 * scores. Null below two cases, and when the cases' means are alike but for rounding.
 */
export function scoreMeanInterval(
  mean: number,
  sd: number | null,
  n: number,
  cases?: number,
  sums?: ScoreSums,
): Interval | null {
  let interval: Interval | null;
  if (!grouped(n, cases)) interval = meanInterval(mean, sd, n);
  else if (!sums || sums.cases !== cases || sums.n !== n)
    interval = meanInterval(mean, caseMeansSd(sd, n, cases), cases);
  else if (cases < 2) interval = null;
  else {
    // The sd that gives that standard error over √cases (the case means' sd, with even trials).
    const se = Math.sqrt(clusterVariance(sums.residuals, n, cases));
    interval = meanInterval(mean, se * Math.sqrt(cases), cases);
  }
  return (
    interval && { ...interval, low: Math.max(0, interval.low), high: Math.min(1, interval.high) }
  );
}

/**
 * Without per-case sums: the sd of `cases` case means from the sd of their `n` attempts (n / cases
 * trials each, on average), as if each case's trials agreed: with m cases of k trials, the
 * attempts' sum of squares holds k times the case means' when nothing varies within a case, so
 * s_cases² = s² (n - 1) / (k (m - 1)), an upper bound when every case has as many scored trials
 * and an approximation otherwise.
 */
function caseMeansSd(sd: number | null, n: number, cases: number): number | null {
  if (sd === null || cases < 2) return sd;
  return sd * Math.sqrt(((n - 1) * cases) / (n * (cases - 1)));
}

/** What the run-wide figures need of an eval's summary. */
interface EvalCounts {
  cases: number;
  passed: number;
  skipped: number;
  /** Attempts the run's stop cut off: not judged, like skipped ones. */
  interrupted?: number | undefined;
  trials?: { cases: number; spread?: CaseSpread };
}

/** An eval's attempts that were judged: neither skipped nor cut off by the run's stop. */
export const judgedAttempts = (e: Omit<EvalCounts, "passed" | "trials">): number =>
  e.cases - e.skipped - (e.interrupted ?? 0);

/**
 * The cases a run's attempts are trials of, when any of its evals ran several trials: each
 * eval's cases (those with a judged trial), or its judged attempts when it ran one trial each.
 * Undefined without trials.
 */
export function runCases(evals: readonly EvalCounts[]): number | undefined {
  if (!evals.some((e) => e.trials)) return undefined;
  return evals.reduce((sum, e) => sum + (e.trials?.cases ?? judgedAttempts(e)), 0);
}

/**
 * The per-case counts of a run's pass rate, when any of its evals ran several trials: each eval's
 * own, or, for an eval that ran one trial each, its attempts as cases of one. Undefined without
 * trials, and when an eval's summary was stored without them.
 */
export function runShareSums(evals: readonly EvalCounts[]): ShareSums | undefined {
  if (!evals.some((e) => e.trials)) return undefined;
  const sums = emptyShareSums();
  for (const e of evals) {
    if (e.trials) {
      const own = e.trials.spread?.passed;
      if (!own) return undefined;
      sums.cases += own.cases;
      sums.n += own.n;
      sums.c += own.c;
      sums.cc += own.cc;
      sums.cn += own.cn;
      sums.nn += own.nn;
    } else {
      const judged = judgedAttempts(e);
      sums.cases += judged;
      sums.n += judged;
      sums.c += e.passed;
      sums.cc += e.passed;
      sums.cn += e.passed;
      sums.nn += judged;
    }
  }
  return sums;
}

/** What pooling needs of an eval's scores: their mean, count and sd, and its per-case sums. */
export interface ScoredPart {
  mean: number;
  /** Scores (scored attempts). */
  n: number;
  sd: number | null;
  /**
   * Its per-case sums when it ran trials (null: it did, stored without them); without trials,
   * each score is a case of its own.
   */
  sums?: ScoreSums | null | undefined;
}

/**
 * The per-case sums of several evals' scores pooled around their common `mean`: each eval's
 * residuals moved from its own mean m to it, Σ(s − n·M)² = R − 2(M − m)·Σn(s − n·m) + (M − m)²·Σn²
 * (an eval without trials has R = (n − 1)·sd², a cross term of 0 and Σn² = n). Undefined when an
 * eval with trials was stored without what moves its residuals.
 */
export function pooledScoreSums(parts: readonly ScoredPart[], mean: number): ScoreSums | undefined {
  const pooled: ScoreSums = { cases: 0, n: 0, residuals: 0 };
  for (const part of parts) {
    if (part.sums === null) return undefined;
    const own = part.sums ?? {
      cases: part.n,
      n: part.n,
      residuals: (part.n - 1) * (part.sd ?? 0) ** 2,
      cross: 0,
      sizes: part.n,
    };
    if (own.cross === undefined || own.sizes === undefined) return undefined;
    const shift = mean - part.mean;
    pooled.cases += own.cases;
    pooled.n += own.n;
    pooled.residuals += own.residuals - 2 * shift * own.cross + shift * shift * own.sizes;
  }
  pooled.residuals = Math.max(0, pooled.residuals);
  return pooled;
}
