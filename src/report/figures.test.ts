import { describe, expect, it } from "vitest";
import type { EvalSummary } from "../runner/events.js";
import {
  evalFigures,
  formatMeanScore,
  formatPassRate,
  meanScoreFigure,
  passRateFigure,
  runPassRateFigure,
} from "./figures.js";

const summary = (overrides: Partial<EvalSummary> = {}): EvalSummary => ({
  evalId: "e",
  style: "suite",
  cases: 10,
  passed: 8,
  failed: 2,
  errored: 0,
  skipped: 0,
  meanScore: 0.8,
  sdScore: 0.2,
  scoredCases: 10,
  partialCases: 0,
  judge: { calls: 0, cachedCalls: 0, retries: 0, inputTokens: 0, outputTokens: 0, latencyMs: 0 },
  elapsedMs: 5,
  ...overrides,
});

describe("passRateFigure", () => {
  it("carries n and the 95% Wilson interval (8/10: 0.490–0.943)", () => {
    const figure = passRateFigure({ cases: 10, passed: 8, skipped: 0 });
    expect(figure).toMatchObject({ rate: 0.8, passed: 8, n: 10 });
    expect(figure.interval?.method).toBe("wilson");
    expect(figure.interval?.level).toBe(0.95);
    expect(figure.interval?.low).toBeCloseTo(0.4902, 4);
    expect(figure.interval?.high).toBeCloseTo(0.9433, 4);
    expect(formatPassRate(figure)).toBe("80% of 10, 95% CI 49–94.3%");
  });

  it("leaves skipped attempts out of n: they are no evidence either way", () => {
    expect(passRateFigure({ cases: 5, passed: 3, skipped: 2 })).toMatchObject({ rate: 1, n: 3 });
  });

  it("has no rate and no interval when nothing was rated", () => {
    const figure = passRateFigure({ cases: 2, passed: 0, skipped: 2 });
    expect(figure).toEqual({ rate: null, passed: 0, n: 0, interval: null });
    expect(formatPassRate(figure)).toBe("no attempt to rate");
  });
});

describe("meanScoreFigure", () => {
  it("carries n, sd and the 95% t interval of the mean (9 degrees of freedom)", () => {
    const figure = meanScoreFigure(summary());
    const half = (2.262157 * 0.2) / Math.sqrt(10);
    expect(figure.interval?.method).toBe("t");
    expect(figure.interval?.low).toBeCloseTo(0.8 - half, 6);
    expect(figure.interval?.high).toBeCloseTo(0.8 + half, 6);
    expect(figure).toMatchObject({ mean: 0.8, n: 10, partial: 0, lowerBound: false });
    expect(formatMeanScore(figure)).toBe("0.8 ± 0.2 sd, 95% CI 0.657–0.943 (n=10)");
  });

  it("marks a mean over partial scores as a lower bound", () => {
    const figure = meanScoreFigure(summary({ meanScore: 0.71, partialCases: 2 }));
    expect(figure.lowerBound).toBe(true);
    expect(formatMeanScore(figure)).toMatch(/^≥ 0\.71 .*\(n=10, 2 partial\)$/);
  });

  it("keeps the interval inside [0, 1]", () => {
    const figure = meanScoreFigure(summary({ meanScore: 0.95, sdScore: 0.3, scoredCases: 3 }));
    expect(figure.interval?.high).toBe(1);
  });

  it("has no interval when every score is the same, while the pass rate keeps its Wilson one", () => {
    // Three scores of 0.9: "95% CI 0.9–0.9" would claim a certainty three cases do not give.
    const steady = evalFigures(
      summary({ cases: 3, passed: 3, failed: 0, meanScore: 0.9, sdScore: 0, scoredCases: 3 }),
    );
    expect(steady.meanScore.interval).toBeNull();
    expect(formatMeanScore(steady.meanScore)).toBe("0.9 ± 0 sd (n=3)");
    expect(formatPassRate(steady.passRate)).toBe("100% of 3, 95% CI 43.9–100%");
  });

  it("has no interval below two scored attempts, and no mean without one", () => {
    expect(meanScoreFigure(summary({ scoredCases: 1, sdScore: null })).interval).toBeNull();
    const none = evalFigures(summary({ meanScore: null, sdScore: null, scoredCases: 0 }));
    expect(none.meanScore).toMatchObject({ mean: null, n: 0, interval: null });
    expect(formatMeanScore(none.meanScore)).toBe("n/a");
  });
});

describe("figures of trials", () => {
  // 30 cases run twice; 25 pass both trials, 5 fail both: 60 attempts, but 30 cases of evidence.
  const trials = {
    cases: 30,
    scoredCases: 30,
    attempts: 60,
    skipped: 0,
  } as NonNullable<EvalSummary["trials"]>;
  const twice = summary({
    cases: 60,
    passed: 50,
    failed: 10,
    meanScore: 50 / 60,
    sdScore: 0.376,
    scoredCases: 60,
    trials,
  });

  it("count cases, not attempts, in the pass rate's interval", () => {
    const { passRate } = evalFigures(twice);
    expect(passRate).toMatchObject({ n: 60, cases: 30 });
    expect(formatPassRate(passRate)).toBe("83.3% of 60, 95% CI 66.4–92.7% over 30 cases");
    // The run's figure groups its evals' cases alike.
    const run = runPassRateFigure({
      totals: { evals: 1, cases: 60, passed: 50, failed: 10, errored: 0, skipped: 0 },
      evals: [twice],
    } as unknown as Parameters<typeof runPassRateFigure>[0]);
    expect(run.cases).toBe(30);
    expect(run.interval).toEqual(passRate.interval);
  });

  it("count cases in the mean score's interval, and say so", () => {
    const { meanScore } = evalFigures(twice);
    expect(meanScore).toMatchObject({ n: 60, cases: 30 });
    expect(formatMeanScore(meanScore)).toMatch(/\(n=60 over 30 cases\)$/);
    // Wider than 60 independent attempts would give.
    const { trials: _, ...once } = twice;
    const asAttempts = evalFigures(once).meanScore;
    expect(meanScore.interval!.low).toBeLessThan(asAttempts.interval!.low);
  });
});

describe("the mean score's interval with trials", () => {
  it("counts the cases the scores came from, not cases whose every trial errored", () => {
    // 10 cases run twice; 5 errored both times: 10 scores from 5 cases.
    const { meanScore } = evalFigures(
      summary({
        cases: 20,
        passed: 8,
        failed: 2,
        errored: 10,
        meanScore: 0.8,
        sdScore: 0.42,
        scoredCases: 10,
        trials: { cases: 10, scoredCases: 5, attempts: 20, skipped: 0 } as NonNullable<
          EvalSummary["trials"]
        >,
      }),
    );
    expect(meanScore.cases).toBe(5);
    expect(formatMeanScore(meanScore)).toMatch(/\(n=10 over 5 cases\)$/);
  });
});
