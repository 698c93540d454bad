import { describe, expect, it } from "vitest";
import type { Verdict } from "../eval/record.js";
import type { EvalSummary } from "../runner/events.js";
import { EvalAccumulator } from "../runner/stats.js";
import { wilsonInterval } from "../stats/interval.js";
import {
  evalFigures,
  formatAppUsage,
  formatMeanScore,
  formatPassRate,
  meanScoreFigure,
  passRateFigure,
  runMeanScoreFigure,
  runPassRateFigure,
  summaryWithFigures,
} from "./figures.js";
import { record, runSummary } from "./test-support/runs.js";

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

  it("leaves out the attempts the run's stop cut off: they were not judged, which is no failure", () => {
    const figure = passRateFigure({ cases: 19, passed: 11, skipped: 0, interrupted: 8 });
    expect(figure).toMatchObject({ rate: 1, passed: 11, n: 11, interrupted: 8 });
    expect(figure.interval).toEqual(wilsonInterval(11, 11));
    expect(formatPassRate(figure)).toBe("100% of 11, 95% CI 74.1–100%");
    // A summary stored before the count was kept reads as none.
    expect(passRateFigure({ cases: 19, passed: 11, skipped: 0 }).n).toBe(19);
  });

  it("has no rate and no interval when nothing was rated", () => {
    const figure = passRateFigure({ cases: 2, passed: 0, skipped: 2 });
    expect(figure).toEqual({ rate: null, passed: 0, n: 0, interval: null });
    expect(formatPassRate(figure)).toBe("no attempt to rate");
  });
});

describe("runMeanScoreFigure", () => {
  it("pools several evals' scores into one sample: its n, sd and 95% t interval", () => {
    // Eval a scored 1, 0, 1 and eval b 0.5, 0.5: the five scores have mean 0.6 and sample variance
    // (0.16 + 0.36 + 0.16 + 0.01 + 0.01) / 4 = 0.175; t(0.975, 4 df) = 2.776445 (published table).
    const a = summary({ evalId: "a", meanScore: 2 / 3, sdScore: Math.sqrt(1 / 3), scoredCases: 3 });
    const b = summary({ evalId: "b", meanScore: 0.5, sdScore: 0, scoredCases: 2 });
    const figure = runMeanScoreFigure([a, b]);
    const sd = Math.sqrt(0.175);
    const half = (2.776445 * sd) / Math.sqrt(5);
    expect(figure).toMatchObject({ mean: 0.6, n: 5, partial: 0, lowerBound: false });
    expect(figure.sd).toBeCloseTo(sd, 9);
    expect(figure.interval?.method).toBe("t");
    expect(figure.interval?.low).toBeCloseTo(0.6 - half, 5);
    expect(figure.interval?.high).toBe(1);
  });

  it("is one eval's own figure, a lower bound without interval when a score was partial, none without scores", () => {
    const only = summary();
    expect(runMeanScoreFigure([only, summary({ meanScore: null, scoredCases: 0 })])).toEqual(
      meanScoreFigure(only),
    );
    const partial = runMeanScoreFigure([summary(), summary({ partialCases: 2 })]);
    expect(partial).toMatchObject({ n: 20, partial: 2, lowerBound: true, interval: null });
    expect(runMeanScoreFigure([summary({ meanScore: null, scoredCases: 0 })])).toMatchObject({
      mean: null,
      n: 0,
      interval: null,
    });
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
    // Neither sd nor interval: they would describe the missing points counted as 0.
    expect(figure).toMatchObject({ sd: null, interval: null });
    expect(formatMeanScore(figure)).toBe("≥ 0.71 (n=10, 2 partial: a lower bound, no interval)");
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

describe("figures of trials, from a summary stored without per-case sums", () => {
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

/**
 * An eval's summary folded by the engine's accumulator from cases given as their trials'
 * [verdict, score] pairs.
 */
function folded(cases: [Verdict, number][][], id = "e"): EvalSummary {
  const fold = new EvalAccumulator(id, "suite", Math.max(...cases.map((c) => c.length)));
  for (const [i, trials] of cases.entries())
    for (const [trial, [verdict, score]] of trials.entries())
      fold.add(
        record({
          evalId: id,
          caseId: `c${i}`,
          index: i,
          trial,
          verdict,
          score: { state: "complete", earned: score, max: 1, reasons: [] },
        }),
      );
  return fold.finish(0);
}

/** `count` copies of a case's trials. */
const times = (count: number, trials: [Verdict, number][]) =>
  Array.from({ length: count }, () => trials);

describe("one interval per figure with trials", () => {
  // 200 cases run 3 times, trials disagreeing as an agent's do: 600 attempts.
  const cases = [
    ...times(140, [
      ["passed", 1],
      ["passed", 1],
      ["passed", 0.9],
    ]),
    ...times(36, [
      ["passed", 0.8],
      ["failed", 0.4],
      ["passed", 1],
    ]),
    ...times(14, [
      ["failed", 0.2],
      ["passed", 0.9],
      ["failed", 0.5],
    ]),
    ...times(10, [
      ["failed", 0],
      ["failed", 0.3],
      ["failed", 0],
    ]),
  ];
  const summary = folded(cases);
  const figures = evalFigures(summary);

  it("gives the pass rate pass@1's interval: over the 200 cases, not the 600 attempts", () => {
    const k1 = summary.trials!.byK[0]!;
    expect(k1.passAtK.value).toBeCloseTo(figures.passRate.rate!, 12);
    expect(figures.passRate).toMatchObject({ n: 600, cases: 200 });
    expect(figures.passRate.interval!.low).toBeCloseTo(k1.passAtK.interval!.low, 12);
    expect(figures.passRate.interval!.high).toBeCloseTo(k1.passAtK.interval!.high, 12);
    // Wider than 600 independent attempts would give.
    const attempts = wilsonInterval(summary.passed, 600)!;
    expect(figures.passRate.interval!.low).toBeLessThan(attempts.low);
    expect(formatPassRate(figures.passRate)).toMatch(
      /^84\.3% of 600, 95% CI 80\.1–87\.8% over 200 cases$/,
    );
  });

  it("gives the mean score the interval of its case means, the trials' per-case mean's", () => {
    const { mean } = summary.trials!.score;
    expect(mean.value).toBeCloseTo(figures.meanScore.mean!, 12);
    expect(figures.meanScore).toMatchObject({ n: 600, cases: 200 });
    expect(figures.meanScore.interval!.low).toBeCloseTo(mean.interval!.low, 12);
    expect(figures.meanScore.interval!.high).toBeCloseTo(mean.interval!.high, 12);
    // Not the attempts' sd over the number of cases, which was wider.
    const { spread: _, ...stored } = summary.trials!;
    const cautious = evalFigures({ ...summary, trials: stored });
    expect(cautious.meanScore.interval!.low).toBeLessThan(figures.meanScore.interval!.low);
  });

  it("gives the run's mean score the cluster-robust interval over every eval's cases, with unequal trials", () => {
    const a = folded(
      [0.2, 0.3, 0.5, 0.4, 0.6, 0.1].map((x): [Verdict, number][] => [["passed", x]]),
      "a",
    );
    const b = folded(
      [
        [
          ["passed", 0.9],
          ["passed", 0.8],
        ],
        [
          ["failed", 0.3],
          ["failed", 0.4],
          ["passed", 0.5],
        ],
        [["passed", 0.6]],
      ],
      "b",
    );
    // Computed here from the cases: G = 9 cases, N = 12 scores, residuals r = Σs − n·M of each
    // case, SE = √(G/(G − 1) · Σr² / N²), t(0.975, 8 df) = 2.306004 (published table).
    const clusters = [[0.2], [0.3], [0.5], [0.4], [0.6], [0.1], [0.9, 0.8], [0.3, 0.4, 0.5], [0.6]];
    const all = clusters.flat();
    const mean = all.reduce((x, y) => x + y, 0) / all.length;
    const r2 = clusters.reduce(
      (sum, c) => sum + (c.reduce((x, y) => x + y, 0) - c.length * mean) ** 2,
      0,
    );
    const se = Math.sqrt(((9 / 8) * r2) / all.length ** 2);
    const figure = runMeanScoreFigure([a, b]);
    expect(figure).toMatchObject({ n: 12, cases: 9 });
    expect(figure.mean).toBeCloseTo(mean, 12);
    expect(figure.interval!.low).toBeCloseTo(mean - 2.306004 * se, 5);
    expect(figure.interval!.high).toBeCloseTo(mean + 2.306004 * se, 5);
    // One eval's own figure is the same formula over its cases.
    expect(runMeanScoreFigure([b])).toEqual(evalFigures(b).meanScore);
  });

  it("gives the run's pass rate its one eval's interval, and adds evals without trials as cases of one", () => {
    const totals = {
      evals: 1,
      cases: 600,
      passed: summary.passed,
      failed: summary.failed,
      errored: 0,
      skipped: 0,
    };
    expect(runPassRateFigure(runSummary({ evals: [summary], totals }))).toEqual(figures.passRate);
    // With an eval run once per case, the run's interval comes from both evals' cases.
    const once = folded(
      Array.from({ length: 50 }, (_, i): [Verdict, number][] => [
        i < 40 ? ["passed", 1] : ["failed", 0],
      ]),
      "once",
    );
    const both = runPassRateFigure(
      runSummary({
        evals: [summary, once],
        totals: {
          ...totals,
          evals: 2,
          cases: 650,
          passed: summary.passed + 40,
          failed: summary.failed + 10,
        },
      }),
    );
    expect(both).toMatchObject({ n: 650, cases: 250 });
    expect(both.interval!.method).toBe("wilson");
    const cautious = wilsonInterval(both.rate! * 250, 250)!;
    expect(both.interval!.high - both.interval!.low).toBeLessThan(cautious.high - cautious.low);
  });

  it("leaves out the trials a stop cut off, interval and all: the figure of the trials judged", () => {
    const stopped = new EvalAccumulator("e", "suite", 3);
    for (const [i, trials] of cases.entries())
      for (const [trial, [verdict, score]] of trials.entries()) {
        const judged = record({
          evalId: "e",
          caseId: `c${i}`,
          index: i,
          trial,
          verdict,
          score: { state: "complete", earned: score, max: 1, reasons: [] },
        });
        stopped.add(judged);
        // Past case 150, each case's last trial was cut off by the stop (after its two judged).
        if (i >= 150 && trial === 1)
          stopped.add(
            record({
              ...judged,
              trial: 2,
              verdict: "errored",
              score: { state: "unavailable", earned: 0, max: 1, reasons: [] },
              error: { message: "the run was stopped", where: "target", interrupted: true },
            }),
          );
        if (i >= 150 && trial >= 1) break;
      }
    const summary = stopped.finish(0);
    // The same cases with those trials never run.
    const judgedOnly = folded(cases.map((trials, i) => (i >= 150 ? trials.slice(0, 2) : trials)));
    const { passRate } = evalFigures(summary);
    expect(passRate).toEqual({ ...evalFigures(judgedOnly).passRate, interrupted: 50 });
    expect(passRate).toMatchObject({ n: 550, cases: 200 });
    const totals = {
      evals: 1,
      cases: summary.cases,
      passed: summary.passed,
      failed: summary.failed,
      errored: summary.errored,
      skipped: 0,
      interrupted: 50,
    };
    expect(runPassRateFigure(runSummary({ evals: [summary], totals }))).toEqual(passRate);
  });

  it("leaves the figures of a run without trials as they were", () => {
    const once = folded(
      Array.from({ length: 10 }, (_, i): [Verdict, number][] => [
        i < 8 ? ["passed", 0.9] : ["failed", 0.1],
      ]),
    );
    expect(once.trials).toBeUndefined();
    const { passRate, meanScore } = evalFigures(once);
    expect(passRate).toEqual({ rate: 0.8, passed: 8, n: 10, interval: wilsonInterval(8, 10) });
    expect(meanScore.cases).toBeUndefined();
    expect(formatMeanScore(meanScore)).toBe("0.74 ± 0.337 sd, 95% CI 0.499–0.981 (n=10)");
  });

  it("writes `attempts` beside `cases` in the JSON summary, the cases under `trials`", () => {
    const json = summaryWithFigures(
      runSummary({
        evals: [summary],
        totals: {
          evals: 1,
          cases: 600,
          passed: summary.passed,
          failed: summary.failed,
          errored: 0,
          skipped: 0,
        },
      }),
    );
    expect(json.evals[0]).toMatchObject({ cases: 600, attempts: 600, trials: { cases: 200 } });
    expect(Object.keys(json.evals[0]!).slice(0, 4)).toEqual([
      "evalId",
      "style",
      "cases",
      "attempts",
    ]);
    expect(json.totals).toMatchObject({ cases: 600, attempts: 600 });
  });
});

describe("formatAppUsage", () => {
  it("says nothing when no attempt reported usage", () => {
    expect(formatAppUsage(undefined)).toBeUndefined();
    expect(formatAppUsage({ reported: 0, unreported: 4 })).toBeUndefined();
  });

  it("gives the tokens and the cost with how many attempts reported them", () => {
    expect(
      formatAppUsage({
        reported: 4,
        unreported: 0,
        inputTokens: 8000,
        outputTokens: 4000,
        totalTokens: 12000,
        costUsd: 1,
      }),
    ).toBe("4 of 4 attempts reported usage · 8000 in / 4000 out / 12000 total tokens · $1");
    // A cost below a cent keeps its digits.
    expect(formatAppUsage({ reported: 1, unreported: 0, costUsd: 0.000109 })).toBe(
      "1 of 1 attempt reported usage · $0.000109",
    );
  });

  it("says which attempts a sum leaves out: the unreported ones, and those without the field", () => {
    expect(
      formatAppUsage({
        reported: 3,
        unreported: 2,
        inputTokens: 4100,
        outputTokens: 2050,
        totalTokens: 6150,
        costUsd: 0.5,
        missing: { costUsd: 1 },
      }),
    ).toBe(
      "3 of 5 attempts reported usage (2 unreported) · 4100 in / 2050 out / 6150 total tokens · $0.5 (2 of 3)",
    );
  });
});
