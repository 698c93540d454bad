// The columns and words of a trend chart, apart from uPlot and the DOM, so tests read them as drawn.
import { plural } from "../../src/plural.js";
import type { RunRow } from "../../src/viewer/api.js";
import { meanText } from "./numbers.js";

/** One run's figures of the eval a trend chart is about: the run's start (Unix seconds) and name. */
export interface TrendPoint {
  t: number;
  run: string;
  e: RunRow["perEval"][number];
}

/**
 * The series of a trend chart, a value per run each (null where nothing is drawn): the pass rate
 * and its band, the mean score and its band, and the mean scores that are only lower bounds
 * (partial scores). A lower bound is no point of the mean score's line, which has a gap there, nor
 * of its band: it is drawn apart, marked as a lower bound.
 */
export interface TrendColumns {
  t: number[];
  passRate: (number | null)[];
  passLow: (number | null)[];
  passHigh: (number | null)[];
  meanScore: (number | null)[];
  scoreLow: (number | null)[];
  scoreHigh: (number | null)[];
  lowerBound: (number | null)[];
}

export function trendColumns(points: TrendPoint[]): TrendColumns {
  const col = <T>(f: (e: TrendPoint["e"]) => T) => points.map((p) => f(p.e));
  const real = (e: TrendPoint["e"]) => !e.meanScoreLowerBound;
  return {
    t: points.map((p) => p.t),
    passRate: col((e) => e.passRate),
    passLow: col((e) => e.passRateInterval?.low ?? null),
    passHigh: col((e) => e.passRateInterval?.high ?? null),
    meanScore: col((e) => (real(e) ? e.meanScore : null)),
    scoreLow: col((e) => (real(e) ? (e.meanScoreInterval?.low ?? null) : null)),
    scoreHigh: col((e) => (real(e) ? (e.meanScoreInterval?.high ?? null) : null)),
    lowerBound: col((e) => (real(e) ? null : e.meanScore)),
  };
}

/** The lower bounds a note under the chart names, newest last; the older ones are counted. */
const NAMED = 5;

/**
 * What the note under a trend chart says of its lower bounds, or null without any:
 * "mean score only a lower bound in 1 run (partial scores), drawn apart from its line: ≥ 0.333 (head)".
 */
export function lowerBoundNote(points: TrendPoint[]): string | null {
  const bounds = points.filter((p) => p.e.meanScoreLowerBound && p.e.meanScore !== null);
  if (bounds.length === 0) return null;
  const named = bounds
    .slice(-NAMED)
    .map((p) => `${meanText(p.e.meanScore, p.e.partialCases)} (${p.run})`);
  const older = bounds.length - named.length;
  return `mean score only a lower bound in ${plural(bounds.length, "run")} (partial scores), drawn apart from its line: ${older > 0 ? `${older} older, ` : ""}${named.join(", ")}`;
}
