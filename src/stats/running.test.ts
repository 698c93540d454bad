import { describe, expect, it } from "vitest";
import { RunningMean } from "./running.js";

const meanOf = (values: number[]) => {
  const running = new RunningMean();
  for (const value of values) running.add(value);
  return running;
};

describe("RunningMean", () => {
  it("gives the same mean whatever the order of the values", () => {
    const passesFirst = meanOf([1, 1, 1, 1, 1, 1, 1, 1, 0, 0]);
    const failuresFirst = meanOf([0, 0, 1, 1, 1, 1, 1, 1, 1, 1]);
    expect(passesFirst.mean).toBe(0.8);
    expect(failuresFirst.mean).toBe(0.8);
  });

  it("keeps what plain summation rounds away", () => {
    expect(meanOf(Array(10).fill(0.1)).mean).toBe(0.1);
    expect(meanOf([1e16, 1, -1e16]).mean).toBeCloseTo(1 / 3, 15);
  });

  it("gives the sample standard deviation, and null where it is undefined", () => {
    expect(meanOf([]).mean).toBeNull();
    expect(meanOf([0.5]).sd).toBeNull();
    expect(meanOf([0, 1]).sd).toBeCloseTo(Math.SQRT1_2, 12);
  });
});
