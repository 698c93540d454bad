import { describe, expect, it } from "vitest";
import { mcnemarExact } from "./mcnemar.js";
import { createRandom } from "./random.js";
import { signFlipTest } from "./sign-flip.js";
import {
  type CaseTrials,
  casesToReach,
  scorePermutationTest,
  smallestTrialPermutationP,
  trialPermutationTest,
} from "./trial-permutation.js";

/** Cases given as [base passed, base trials, head passed, head trials]. */
function cases(rows: readonly (readonly [number, number, number, number])[]): CaseTrials {
  return {
    basePassed: rows.map((r) => r[0]),
    baseTrials: rows.map((r) => r[1]),
    headPassed: rows.map((r) => r[2]),
    headTrials: rows.map((r) => r[3]),
  };
}

const repeat = <T>(n: number, row: T): T[] => Array.from({ length: n }, () => row);

describe("trialPermutationTest", () => {
  it("is McNemar's exact test with one trial per case in both runs", () => {
    for (const [worse, better, same] of [
      [3, 9, 5],
      [0, 6, 2],
      [10, 10, 0],
      [40, 60, 7],
      [7, 1, 0],
    ] as const) {
      const test = trialPermutationTest(
        cases([
          ...repeat(worse, [1, 1, 0, 1] as const),
          ...repeat(better, [0, 1, 1, 1] as const),
          ...repeat(same, [1, 1, 1, 1] as const),
        ]),
      );
      expect(test.pValue).toBeCloseTo(mcnemarExact(worse, better).pValue, 12);
      expect(test).toMatchObject({ method: "exact", mixed: worse + better });
    }
  });

  it("deals each case's passes between its trials: 1 base trial against 3, by hand", () => {
    // One pass among 4 trials: the base's with chance 1/4 (sum −1), else a head's (sum +1/3).
    expect(trialPermutationTest(cases([[1, 1, 0, 3]])).pValue).toBeCloseTo(0.25, 12);
    // Two such cases, both the base's: only (−1, −1) is as far from 0, with chance 1/16.
    expect(
      trialPermutationTest(
        cases([
          [1, 1, 0, 3],
          [1, 1, 0, 3],
        ]),
      ).pValue,
    ).toBeCloseTo(1 / 16, 12);
    // One base's (−1), one head's (+1/3), summing to −2/3: every deal is as far from 0 (−2 with
    // chance 1/16, −2/3 with 6/16, +2/3 with 9/16).
    expect(
      trialPermutationTest(
        cases([
          [1, 1, 0, 3],
          [0, 1, 1, 3],
        ]),
      ).pValue,
    ).toBeCloseTo(1, 12);
  });

  it("leaves out cases whose trials all passed or all failed, which cannot move", () => {
    const test = trialPermutationTest(
      cases([
        [3, 3, 5, 5],
        [0, 3, 0, 5],
        [1, 1, 0, 3],
      ]),
    );
    expect(test).toMatchObject({ mixed: 1, pValue: 0.25 });
    expect(trialPermutationTest(cases([[2, 2, 4, 4]]))).toMatchObject({ mixed: 0, pValue: 1 });
  });

  it("draws, or approximates, what it cannot sum, and agrees with the exact law", () => {
    const random = createRandom(5);
    const rows = Array.from({ length: 300 }, (): [number, number, number, number] => {
      const p = random.float();
      let base = 0;
      let head = 0;
      for (let t = 0; t < 3; t++) if (random.float() < p) base++;
      for (let t = 0; t < 5; t++) if (random.float() < p - 0.05) head++;
      return [base, 3, head, 5];
    });
    const exact = trialPermutationTest(cases(rows));
    const drawn = trialPermutationTest(cases(rows), { exactSteps: 0, resamples: 20_000 });
    const normal = trialPermutationTest(cases(rows), { exactSteps: 0, resamples: 0 });
    expect([exact.method, drawn.method, normal.method]).toEqual(["exact", "monte-carlo", "normal"]);
    expect(exact.pValue).toBeGreaterThan(0.001);
    expect(exact.pValue).toBeLessThan(0.5);
    expect(Math.abs(drawn.pValue - exact.pValue)).toBeLessThan(0.01);
    expect(Math.abs(normal.pValue - exact.pValue)).toBeLessThan(0.02);
  });

  it("keeps false alarms under alpha where the sign-flip test over pass shares does not: 1 trial against 10 at 0.95", () => {
    // 20 cases whose every trial passes with chance 0.95 in both runs. A case is mostly 0.9 − 1
    // (one of ten head trials failed) and rarely 1 − 0: the sign-flip test reads the many small
    // falls as a fall.
    const random = createRandom(11);
    let permutation = 0;
    let signFlip = 0;
    const pairs = 300;
    for (let k = 0; k < pairs; k++) {
      const rows = Array.from({ length: 20 }, (): [number, number, number, number] => {
        let head = 0;
        for (let t = 0; t < 10; t++) if (random.float() < 0.95) head++;
        return [random.float() < 0.95 ? 1 : 0, 1, head, 10];
      });
      if (trialPermutationTest(cases(rows), { seed: k }).pValue < 0.05) permutation++;
      const shares = rows.map(([b, , h]) => h / 10 - b);
      if (signFlipTest(shares, { seed: k, resamples: 1000 }).pValue < 0.05) signFlip++;
    }
    expect(permutation / pairs).toBeLessThanOrEqual(0.05);
    expect(signFlip / pairs).toBeGreaterThan(0.2);
  });

  it("says the smallest p cases of these trials can give, and how many cases reach alpha", () => {
    expect(smallestTrialPermutationP([1, 1, 1], [1, 1, 1])).toBeCloseTo(2 / 8, 12);
    // 1 against 3: each case's most extreme deal has chance 1/C(4, 3) = 1/4, one way only (its
    // opposite, every pass the base's, is −1/3 from 0, not −1).
    expect(smallestTrialPermutationP([1, 1], [3, 3])).toBeCloseTo(1 / 16, 12);
    expect(smallestTrialPermutationP([1, 1, 1], [2, 2, 2])).toBeCloseTo(1 / 27, 12);
    expect(smallestTrialPermutationP([2, 2], [3, 3])).toBeCloseTo(1 / 100, 12);
    expect(smallestTrialPermutationP([2, 1], [2, 3])).toBeCloseTo(1 / 24, 12);
    expect(smallestTrialPermutationP([2, 2], [2, 2])).toBeCloseTo(2 / 36, 12);
    expect(casesToReach(0.05, 1, 2)).toBe(3);
    expect(casesToReach(0.05, 1, 1)).toBe(6);
    expect(casesToReach(0.05, 1, 3)).toBe(3);
    expect(casesToReach(0.05, 3, 3)).toBe(2);
    // Given the passes: four cases of one base pass against none of 3 head trials.
    const test = trialPermutationTest(cases(repeat(4, [1, 1, 0, 3] as const)), { alpha: 0.001 });
    expect(test.smallestP).toBeCloseTo(1 / 256, 12);
    // (1/4)^5 < 0.001: only the fall is as far from 0 as it (the rise is at most 4 × 1/3).
    expect(test.needed).toBe(5);
  });
});

describe("scorePermutationTest", () => {
  it("is the sign-flip test over the differences with one scored trial per case in both runs", () => {
    const base = [
      0.9, 0.4, 0.7, 0.8, 0.2, 0.6, 0.9, 0.5, 0.3, 0.7, 0.8, 0.1, 0.6, 0.9, 0.5, 0.4, 0.8, 0.2,
    ];
    const head = base.map((v, i) =>
      Math.max(0, v - (i % 3 === 0 ? 0.3 : i % 3 === 1 ? 0.1 : -0.05)),
    );
    const permutation = scorePermutationTest(
      { base: base.map((v) => [v]), head: head.map((v) => [v]) },
      { resamples: 200_000 },
    );
    const signFlip = signFlipTest(head.map((v, i) => v - base[i]!));
    expect(permutation.method).toBe("monte-carlo");
    expect(Math.abs(permutation.pValue - signFlip.pValue)).toBeLessThan(0.005);
  });

  it("keeps false alarms under alpha with 1 scored trial against 10 near a score of 1", () => {
    const random = createRandom(3);
    const draw = () => (random.float() < 0.95 ? 1 : random.float() * 0.5);
    let permutation = 0;
    let signFlip = 0;
    const pairs = 200;
    for (let k = 0; k < pairs; k++) {
      const base = Array.from({ length: 20 }, () => [draw()]);
      const head = Array.from({ length: 20 }, () => Array.from({ length: 10 }, draw));
      // What a gate calls a fall: a significant difference below 0.
      const differences = head.map((h, i) => h.reduce((a, b) => a + b, 0) / 10 - base[i]![0]!);
      const fell = differences.reduce((a, b) => a + b, 0) < 0;
      const test = scorePermutationTest({ base, head }, { seed: k, resamples: 2000 });
      if (fell && test.pValue < 0.05) permutation++;
      if (fell && signFlipTest(differences, { seed: k, resamples: 2000 }).pValue < 0.05) signFlip++;
    }
    expect(permutation / pairs).toBeLessThanOrEqual(0.04);
    expect(signFlip / pairs).toBeGreaterThan(0.15);
  });

  it("says the smallest p the cases' scores allow, ties counted", () => {
    // Each case: head [1, 1, 0], base [1, 1]. Its highest deal (1, 1, 1 to the head: +0.5) is
    // 4 of the C(5, 3) = 10 deals; three cases: 0.4³.
    const tied = scorePermutationTest({
      base: repeat(3, [1, 1]),
      head: repeat(3, [1, 1, 0]),
    });
    expect(tied.smallestP).toBeCloseTo(0.064, 12);
    // Distinct scores, one trial against two: the head's 1 is 1 deal of 3, one way only.
    const distinct = scorePermutationTest({ base: repeat(3, [0, 0.1]), head: repeat(3, [1]) });
    expect(distinct.smallestP).toBeCloseTo(1 / 27, 12);
    // Observed at that extreme: drawn, its p is about the same.
    expect(Math.abs(distinct.pValue - 1 / 27)).toBeLessThan(0.005);
  });

  it("leaves out cases whose scores are all equal, and falls back to the normal approximation", () => {
    const still = scorePermutationTest({ base: [[1], [0.5, 0.5]], head: [[1, 1], [0.5]] });
    expect(still).toMatchObject({ mixed: 0, pValue: 1 });
    const base = Array.from({ length: 50 }, (_, i) => [(i % 7) / 7]);
    const head = Array.from({ length: 50 }, (_, i) => [(i % 7) / 7 - 0.1, ((i + 3) % 7) / 7]);
    const drawn = scorePermutationTest({ base, head }, { resamples: 20_000 });
    const normal = scorePermutationTest({ base, head }, { resamples: 0 });
    expect([drawn.method, normal.method]).toEqual(["monte-carlo", "normal"]);
    expect(Math.abs(drawn.pValue - normal.pValue)).toBeLessThan(0.03);
  });
});
