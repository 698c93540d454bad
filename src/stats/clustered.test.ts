import { describe, expect, it } from "vitest";
import { passRateInterval, scoreMeanInterval } from "./clustered.js";
import { wilsonInterval } from "./interval.js";

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
});
