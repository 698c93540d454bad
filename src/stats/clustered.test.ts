import { describe, expect, it } from "vitest";
import {
  addShareCase,
  CaseSpreadFold,
  emptyShareSums,
  passRateInterval,
  runShareSums,
  type ShareSums,
  scoreMeanInterval,
  shareInterval,
} from "./clustered.js";
import { meanInterval, wilsonInterval } from "./interval.js";

/** The sample standard deviation. */
const sdOf = (xs: number[]) => {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1));
};

describe("intervals over cases from the counts alone (a summary stored without per-case sums)", () => {
  it("count 30 cases run twice as 30, not 60", () => {
    // 25 of 30 cases pass both of their trials.
    const overCases = passRateInterval(50, 60, 30)!;
    expect(overCases.low).toBeCloseTo(wilsonInterval(25, 30)!.low, 12);
    expect(overCases.high).toBeCloseTo(wilsonInterval(25, 30)!.high, 12);
    expect(overCases.low).toBeCloseTo(0.664, 3);
    expect(overCases.high).toBeCloseTo(0.927, 3);
    // As attempts it would be narrower than the evidence allows.
    expect(wilsonInterval(50, 60)!.low).toBeGreaterThan(overCases.low);
  });

  it("are the attempts' own when each case ran once", () => {
    expect(passRateInterval(8, 10, 10)).toEqual(wilsonInterval(8, 10));
    expect(passRateInterval(8, 10)).toEqual(wilsonInterval(8, 10));
    expect(scoreMeanInterval(0.5, 0.2, 10, 10)).toEqual(scoreMeanInterval(0.5, 0.2, 10));
  });

  it("widen a mean's interval to its cases, inside [0, 1]", () => {
    const attempts = scoreMeanInterval(0.55, 0.5, 20)!;
    const cases = scoreMeanInterval(0.55, 0.5, 20, 4)!;
    expect(cases.high - cases.low).toBeGreaterThan(attempts.high - attempts.low);
    expect(cases.low).toBe(0);
    expect(cases.high).toBe(1);
  });

  it("give a mean over cases whose trials agree the interval of its case means", () => {
    // 10 cases run twice, each case's two trials alike: 7 score 1, 3 score 0.
    const caseMeans = [1, 1, 1, 1, 1, 1, 1, 0, 0, 0];
    const attempts = caseMeans.flatMap((m) => [m, m]);
    const overCases = scoreMeanInterval(0.7, sdOf(attempts), 20, 10)!;
    const fromCaseMeans = scoreMeanInterval(0.7, sdOf(caseMeans), 10)!;
    expect(overCases.low).toBeCloseTo(fromCaseMeans.low, 12);
    expect(overCases.high).toBeCloseTo(fromCaseMeans.high, 12);
    // 0.7 - t(9) * 0.483 / sqrt(10), not the 0.364 of the attempts' sd over 10 cases.
    expect(overCases.low).toBeCloseTo(0.354, 3);
  });

  it("stay on the safe side when a case's trials differ", () => {
    // Each case: one trial 1, one 0 (case means all 0.5) or both 1.
    const attempts = [1, 0, 1, 0, 1, 1, 1, 1];
    const caseMeans = [0.5, 0.5, 1, 1];
    const overCases = scoreMeanInterval(0.75, sdOf(attempts), 8, 4)!;
    const exact = scoreMeanInterval(0.75, sdOf(caseMeans), 4)!;
    expect(overCases.low).toBeLessThanOrEqual(exact.low);
  });
});

/** The per-case counts of cases given as [passed, judged] trials. */
const shareSums = (cases: readonly (readonly [number, number])[]): ShareSums => {
  const sums = emptyShareSums();
  for (const [c, n] of cases) addShareCase(sums, c, n);
  return sums;
};

/** `count` cases with `c` of their `n` trials passing. */
const many = (count: number, c: number, n: number): [number, number][] =>
  Array.from({ length: count }, () => [c, n]);

/** `count` copies of a case. */
const times = <T>(count: number, value: T): T[] => Array.from({ length: count }, () => value);

describe("a pass rate's interval from its cases' counts", () => {
  it("is the Wilson interval of the cases when every case's trials agree, as if each ran once", () => {
    // 30 cases run twice: 25 pass both trials, 5 fail both.
    const sums = shareSums([...many(25, 2, 2), ...many(5, 0, 2)]);
    const interval = passRateInterval(50, 60, 30, sums)!;
    expect(interval.method).toBe("wilson");
    expect(interval.low).toBeCloseTo(wilsonInterval(25, 30)!.low, 12);
    expect(interval.high).toBeCloseTo(wilsonInterval(25, 30)!.high, 12);
  });

  it("is the t interval of the per-case pass shares in the middle, not the attempts' Wilson one", () => {
    // 200 cases run 3 times, as agents' are: most pass 3 of 3, some 2, a few 1 or none.
    const cases: [number, number][] = [
      ...many(140, 3, 3),
      ...many(36, 2, 3),
      ...many(14, 1, 3),
      ...many(10, 0, 3),
    ];
    const passed = cases.reduce((sum, [c]) => sum + c, 0);
    const interval = passRateInterval(passed, 600, 200, shareSums(cases))!;
    const shares = cases.map(([c, n]) => c / n);
    const t = meanInterval(passed / 600, sdOf(shares), 200)!;
    // Wilson's shape leans toward 0.5 a little; the width is the per-case shares'.
    expect(interval.high - interval.low).toBeCloseTo(t.high - t.low, 2);
    expect(Math.abs(interval.low - t.low)).toBeLessThan(0.005);
    expect(Math.abs(interval.high - t.high)).toBeLessThan(0.005);
    // Narrower than the cases' Wilson (the trials disagree), wider than the attempts'.
    const cautious = wilsonInterval((passed / 600) * 200, 200)!;
    const attempts = wilsonInterval(passed, 600)!;
    expect(interval.high - interval.low).toBeLessThan(cautious.high - cautious.low);
    expect(interval.high - interval.low).toBeGreaterThan(attempts.high - attempts.low);
  });

  it("keeps Wilson's width near 100%, where the per-case shares' t interval claims certainty", () => {
    // 200 cases run 3 times, one trial of one case failed: the t interval of the shares is
    // 99.50–100%, narrower than even 600 independent attempts would give.
    const sums = shareSums([...many(199, 3, 3), [2, 3]]);
    const interval = passRateInterval(599, 600, 200, sums)!;
    // Nothing says the trials of a case are alike: about the attempts' Wilson interval (with the
    // degrees of freedom of 200 cases).
    expect(interval.low).toBeCloseTo(wilsonInterval(599, 600)!.low, 3);
    expect(interval.low).toBeLessThan(0.995);
    // Every trial passing: the cases' Wilson interval, each case one draw.
    const all = passRateInterval(600, 600, 200, shareSums(many(200, 3, 3)))!;
    expect(all).toEqual(wilsonInterval(200, 200));
    expect(all.low).toBeCloseTo(0.9812, 4);
  });

  it("counts no fewer draws than cases, nor more than attempts", () => {
    // 3 cases run 3 times, one flaky: three cases cannot say how alike trials are.
    const few = passRateInterval(
      8,
      9,
      3,
      shareSums([
        [3, 3],
        [2, 3],
        [3, 3],
      ]),
    )!;
    expect(few.low).toBeCloseTo(wilsonInterval((8 / 9) * 3, 3)!.low, 12);
    // Every case passes 1 of 2: nothing varies between cases, the attempts count (with the
    // degrees of freedom of 40 cases).
    const even = passRateInterval(40, 80, 40, shareSums(many(40, 1, 2)))!;
    expect(even.high - even.low).toBeGreaterThan(
      wilsonInterval(40, 80)!.high - wilsonInterval(40, 80)!.low,
    );
    expect(even.high - even.low).toBeLessThan(
      wilsonInterval(20, 40)!.high - wilsonInterval(20, 40)!.low,
    );
  });

  it("is Wilson's of the attempts when each case ran once, and the cautious one without counts", () => {
    expect(passRateInterval(8, 10, 10, shareSums([...many(8, 1, 1), ...many(2, 0, 1)]))).toEqual(
      wilsonInterval(8, 10),
    );
    expect(shareInterval(0.8, 0.016, 10, 10)).toEqual(wilsonInterval(8, 10));
    // Counts of other attempts than the figure's (a summary that does not cover them): unused.
    const other = shareSums(many(30, 1, 2));
    expect(passRateInterval(50, 60, 30, other)).toEqual(passRateInterval(50, 60, 30));
  });

  it("adds up a run's evals, an eval without trials as cases of one", () => {
    const withTrials = {
      cases: 6,
      passed: 4,
      skipped: 0,
      trials: {
        cases: 3,
        spread: {
          passed: shareSums([
            [2, 2],
            [1, 2],
            [1, 2],
          ]),
          scores: { cases: 3, n: 6, residuals: 0 },
        },
      },
    };
    const once = { cases: 5, passed: 3, skipped: 1 };
    expect(runShareSums([withTrials, once])).toEqual(
      shareSums([
        [2, 2],
        [1, 2],
        [1, 2],
        [1, 1],
        [1, 1],
        [1, 1],
        [0, 1],
      ]),
    );
    expect(runShareSums([once])).toBeUndefined();
    // An eval stored before the counts were kept leaves the run with its cautious interval.
    expect(runShareSums([{ ...withTrials, trials: { cases: 3 } }, once])).toBeUndefined();
  });
});

describe("a mean score's interval from its cases' sums", () => {
  const spreadOf = (cases: number[][]) => {
    const fold = new CaseSpreadFold();
    for (const scores of cases)
      fold.addCase(
        0,
        scores.length,
        scores.reduce((a, b) => a + b, 0),
        scores.length,
      );
    return fold.result().scores;
  };

  it("is the t interval of the case means when every case has as many scores", () => {
    const cases = [
      [1, 0.5, 1],
      [0, 0.5, 0.5],
      [1, 1, 1],
      [0.5, 0, 1],
      [1, 1, 0.5],
    ];
    const scores = cases.flat();
    const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
    const means = cases.map((c) => c.reduce((a, b) => a + b, 0) / c.length);
    const interval = scoreMeanInterval(mean, sdOf(scores), 15, 5, spreadOf(cases))!;
    const exact = meanInterval(mean, sdOf(means), 5)!;
    expect(interval.low).toBeCloseTo(exact.low, 12);
    expect(interval.high).toBe(Math.min(1, exact.high));
  });

  it("weighs cases by their scores when they have uneven counts (cluster-robust)", () => {
    const cases = [[1, 1, 1, 1], [0], [0.5, 1], [1, 0]];
    const scores = cases.flat();
    const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
    let squares = 0;
    for (const c of cases) squares += (c.reduce((a, b) => a + b, 0) - c.length * mean) ** 2;
    const se = Math.sqrt((4 / 3) * squares) / scores.length;
    const interval = scoreMeanInterval(mean, sdOf(scores), 9, 4, spreadOf(cases))!;
    expect(interval.low).toBeCloseTo(Math.max(0, mean - 3.182446 * se), 10);
    expect(interval.high).toBeCloseTo(Math.min(1, mean + 3.182446 * se), 10);
    expect(interval.low).toBeGreaterThan(0);
  });

  it("has none when the cases' means are alike but for rounding, or below two cases", () => {
    const steady = spreadOf(times(4, [0.9, 0.9, 0.9]));
    expect(steady.residuals).toBeLessThan(1e-20);
    expect(scoreMeanInterval(0.9, 0, 12, 4, steady)).toBeNull();
    // Trials that differ within cases whose means agree: the case means have no spread.
    const within = spreadOf(times(4, [1, 0]));
    expect(scoreMeanInterval(0.5, sdOf(times(4, [1, 0]).flat()), 8, 4, within)).toBeNull();
    expect(scoreMeanInterval(0.5, 0.5, 2, 1, spreadOf([[1, 0]]))).toBeNull();
  });
});
