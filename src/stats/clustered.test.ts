import { describe, expect, it } from "vitest";
import { passRateInterval, scoreMeanInterval } from "./clustered.js";
import { wilsonInterval } from "./interval.js";

/** The sample standard deviation. */
const sdOf = (xs: number[]) => {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1));
};

describe("intervals over cases", () => {
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
