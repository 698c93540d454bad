import type { Interval } from "../stats/interval.js";
import type { PairedDifference } from "../stats/paired.js";
import { smallestSignTestP, unitsToReach } from "../stats/sign-flip.js";
import type { NoInterval, TooFewToDetect } from "./types.js";

// What the pass rate's and the mean score's paired differences share: the settings of their tests,
// when a test cannot reach the gate's alpha, and what of a difference is shown then.

/** The settings every test and interval of a comparison uses. */
export interface StatsSettings {
  alpha: number;
  seed: number;
  resamples: number;
  /** The alpha the gate judges these pairs at: alpha, or alpha over the evals for one of several. */
  gateAlpha: number;
}

/**
 * Random sign patterns of a gate's sign-flip test: enough that its p (at least 1/(draws + 1))
 * can fall well below the alpha it is judged at, 0.05 or 0.00005; under 1,000 asked, the normal
 * approximation as documented.
 */
export const testDraws = (options: StatsSettings): number =>
  options.resamples < 1000
    ? options.resamples
    : Math.max(options.resamples, Math.ceil(20 / options.gateAlpha));

/**
 * Why a figure gets no MDE, when the exact test its gate decides by cannot reach `alpha` with
 * `units` units whatever the results (5 cases at 0.05: its smallest p is 0.0625); else null.
 * An MDE from the normal approximation would claim an effect the gate can never find.
 */
export function tooFewToDetect(
  units: number,
  unit: TooFewToDetect["unit"],
  alpha: number,
  /** Units that changed: none is not too few (every difference is 0: `equal-differences`). */
  changed = false,
): TooFewToDetect | null {
  const needed = unitsToReach(alpha);
  if (units >= needed || (changed && units === 0)) return null;
  return { unit, units, alpha, smallestP: smallestSignTestP(units), needed };
}

/**
 * A difference as the comparison gives it: without interval or MDE where the gate's exact test
 * cannot reach its alpha (an interval that excludes 0 would seem to find what the gate cannot),
 * without interval where it excludes 0 and the test (`pValue`) finds nothing at the interval's
 * own alpha, and why an interval is missing.
 */
export function shownDifference(
  paired: PairedDifference,
  tooFew: TooFewToDetect | null,
  fewChanged: TooFewToDetect | null,
  pValue: number,
): { paired: PairedDifference; noInterval: NoInterval | null; intervalSetAside: Interval | null } {
  const none = { intervalSetAside: null };
  if (tooFew)
    return { paired: { ...paired, interval: null, mde: null }, noInterval: "too-few", ...none };
  if (fewChanged)
    return { paired: { ...paired, interval: null }, noInterval: "few-changed", ...none };
  if (paired.equalDifferences) return { paired, noInterval: "equal-differences", ...none };
  const interval = paired.interval;
  if (interval && (interval.low > 0 || interval.high < 0) && pValue >= 1 - interval.level)
    return {
      paired: { ...paired, interval: null },
      noInterval: "test-disagrees",
      intervalSetAside: interval,
    };
  return { paired, noInterval: null, ...none };
}

/** Shares and scores lie in [0, 1], so their differences lie in [−1, 1]; so does the interval. */
export function withinUnitDifference(difference: PairedDifference): PairedDifference {
  const interval = difference.interval;
  if (!interval) return difference;
  return {
    ...difference,
    interval: { ...interval, low: Math.max(-1, interval.low), high: Math.min(1, interval.high) },
  };
}
