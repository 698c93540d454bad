// What a trend chart draws of a mean score that is only a lower bound: no point of the line.
import { describe, expect, it } from "vitest";
import { lowerBoundNote, type TrendPoint, trendColumns } from "../../viewer-app/src/trend.js";

const point = (t: number, run: string, meanScore: number, partialCases: number): TrendPoint => ({
  t,
  run,
  e: {
    evalId: "judged",
    passRate: 1,
    passRateInterval: { low: 0.5, high: 1, level: 0.95, method: "wilson" },
    n: 3,
    passRateCases: null,
    meanScore,
    meanScoreInterval: { low: meanScore - 0.1, high: meanScore + 0.1, level: 0.95, method: "t" },
    scoredAttempts: 3,
    meanScoreCases: null,
    partialCases,
    meanScoreLowerBound: partialCases > 0,
  },
});

describe("a trend chart's columns", () => {
  it("leave a gap in the mean score's line and band where the mean is a lower bound, drawn apart", () => {
    const c = trendColumns([
      point(1, "first", 0.967, 0),
      point(2, "second", 0.333, 2),
      point(3, "third", 0.95, 0),
    ]);
    expect(c.meanScore).toEqual([0.967, null, 0.95]);
    for (const band of [c.scoreLow, c.scoreHigh])
      expect(band.map((x) => x !== null)).toEqual([true, false, true]);
    expect(c.lowerBound).toEqual([null, 0.333, null]);
    // The pass rate is drawn as it is.
    expect(c.passRate).toEqual([1, 1, 1]);
  });

  it("say under the chart which runs' means are lower bounds, with ≥, and nothing without any", () => {
    expect(lowerBoundNote([point(1, "first", 0.967, 0), point(2, "second", 0.333, 2)])).toBe(
      "mean score only a lower bound in 1 run (partial scores), drawn apart from its line: \u2265 0.333 (second)",
    );
    expect(lowerBoundNote([point(1, "first", 0.967, 0), point(2, "second", 0.95, 0)])).toBeNull();
    const many = Array.from({ length: 7 }, (_, i) => point(i, `r${i}`, 0.5, 1));
    expect(lowerBoundNote(many)).toBe(
      "mean score only a lower bound in 7 runs (partial scores), drawn apart from its line: 2 older, \u2265 0.500 (r2), \u2265 0.500 (r3), \u2265 0.500 (r4), \u2265 0.500 (r5), \u2265 0.500 (r6)",
    );
  });
});
