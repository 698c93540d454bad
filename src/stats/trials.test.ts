import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AttemptRecord, Verdict } from "../eval/record.js";
import { erroredRecord } from "../eval/record.js";
import { passRateInterval } from "./clustered.js";
import { wilsonInterval } from "./interval.js";
import { atLeastK, median, passAtK, passHatK, TrialAccumulator } from "./trials.js";

/** 1 − C(n−c, k)/C(n, k) with exact integers, for checking the product form. */
function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let value = 1;
  for (let i = 1; i <= k; i++) value = (value * (n - k + i)) / i;
  return value;
}

const counts = fc
  .integer({ min: 1, max: 60 })
  .chain((n) =>
    fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n }), fc.integer({ min: 1, max: n })),
  );

describe("pass@k, pass^k, at-least-k", () => {
  it("match hand-computed values", () => {
    expect(passAtK(5, 2, 1)).toBeCloseTo(0.4, 12);
    expect(passAtK(5, 2, 2)).toBeCloseTo(0.7, 12); // 1 − C(3,2)/C(5,2) = 1 − 3/10
    expect(passAtK(5, 2, 4)).toBe(1);
    expect(passAtK(5, 0, 3)).toBe(0);
    expect(passHatK(5, 2, 2)).toBeCloseTo(0.1, 12); // C(2,2)/C(5,2)
    expect(passHatK(5, 3, 2)).toBeCloseTo(0.3, 12); // C(3,2)/C(5,2)
    expect(passHatK(5, 1, 2)).toBe(0);
    expect(atLeastK(5, 2, 2)).toBe(1);
    expect(atLeastK(5, 2, 3)).toBe(0);
  });

  it("agree with the binomial-coefficient definitions", () => {
    fc.assert(
      fc.property(counts, ([n, c, k]) => {
        expect(passAtK(n, c, k)).toBeCloseTo(1 - choose(n - c, k) / choose(n, k), 9);
        expect(passHatK(n, c, k)).toBeCloseTo(choose(c, k) / choose(n, k), 9);
      }),
    );
  });

  it("pass@k grows with k and c; pass^k falls with k and grows with c", () => {
    fc.assert(
      fc.property(counts, ([n, c, k]) => {
        if (k < n) {
          expect(passAtK(n, c, k + 1)).toBeGreaterThanOrEqual(passAtK(n, c, k) - 1e-12);
          expect(passHatK(n, c, k + 1)).toBeLessThanOrEqual(passHatK(n, c, k) + 1e-12);
        }
        if (c < n) {
          expect(passAtK(n, c + 1, k)).toBeGreaterThanOrEqual(passAtK(n, c, k) - 1e-12);
          expect(passHatK(n, c + 1, k)).toBeGreaterThanOrEqual(passHatK(n, c, k) - 1e-12);
        }
        expect(passHatK(n, c, k)).toBeLessThanOrEqual(passAtK(n, c, k) + 1e-12);
        if (k === 1) expect(passAtK(n, c, 1)).toBeCloseTo(c / n, 12);
      }),
    );
  });

  it("reject impossible counts", () => {
    expect(() => passAtK(5, 6, 1)).toThrow(RangeError);
    expect(() => passAtK(5, 2, 6)).toThrow(/k ≤ n/);
    expect(() => passHatK(3, 1, 0)).toThrow(RangeError);
  });

  it("median", () => {
    expect(median([])).toBeNull();
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
});

function attempt(caseId: string, trial: number, verdict: Verdict, score: number | null) {
  const record: AttemptRecord = {
    ...erroredRecord({ evalId: "qa", caseId, message: "x", where: "target" }),
    trial,
    verdict,
    score:
      score === null
        ? { state: "unavailable", earned: 0, max: 1, reasons: ["judge down"] }
        : { state: "complete", earned: score, max: 1, reasons: [] },
  };
  if (verdict !== "errored") delete record.error;
  return record;
}

describe("TrialAccumulator", () => {
  it("reduces trials per case and averages over cases", () => {
    const acc = new TrialAccumulator("qa");
    // a: 2 of 3 passed, scores 1, 1, 0.4 — b: 3 of 3 — c: 0 of 3, one score unavailable
    const trials: [string, Verdict, number | null][] = [
      ["a", "passed", 1],
      ["a", "failed", 0.4],
      ["a", "passed", 1],
      ["b", "passed", 0.9],
      ["b", "passed", 0.7],
      ["b", "passed", 0.8],
      ["c", "failed", 0],
      ["c", "errored", null],
      ["c", "failed", 0.2],
    ];
    const seen = new Map<string, number>();
    for (const [caseId, verdict, score] of trials) {
      const trial = seen.get(caseId) ?? 0;
      seen.set(caseId, trial + 1);
      acc.add(attempt(caseId, trial, verdict, score));
    }
    const summary = acc.finish();
    expect(summary).toMatchObject({
      evalId: "qa",
      cases: 3,
      attempts: 9,
      trials: { min: 3, max: 3 },
    });
    const k1 = summary.byK.find((r) => r.k === 1)!;
    expect(k1.passAtK.value).toBeCloseTo((2 / 3 + 1 + 0) / 3, 12);
    expect(k1.passAtK.cases).toBe(3);
    const k2 = summary.byK.find((r) => r.k === 2)!;
    // a: pass@2 = 1 − C(1,2)/C(3,2) = 1, pass^2 = C(2,2)/C(3,2) = 1/3
    expect(k2.passAtK.value).toBeCloseTo((1 + 1 + 0) / 3, 12);
    expect(k2.passHatK.value).toBeCloseTo((1 / 3 + 1 + 0) / 3, 12);
    expect(k2.atLeastK.value).toBeCloseTo(2 / 3, 12);
    expect(summary.byK.map((r) => r.k)).toEqual([1, 2, 3]);
    expect(summary.allPassed.value).toBeCloseTo(1 / 3, 12);
    expect(summary.anyPassed.value).toBeCloseTo(2 / 3, 12);
    // means 0.8, 0.8, 0.1; medians 1, 0.8, 0.1; maxes 1, 0.9, 0.2
    expect(summary.score.mean.value).toBeCloseTo(1.7 / 3, 12);
    expect(summary.score.median.value).toBeCloseTo(1.9 / 3, 12);
    expect(summary.score.max.value).toBeCloseTo(2.1 / 3, 12);
    expect(summary.score.mean.interval).not.toBeNull();
    expect(summary.flaky.count).toBe(2);
    expect(summary.flaky.cases).toEqual([
      { caseId: "a", verdicts: ["passed", "failed", "passed"], passed: 2, trials: 3 },
      { caseId: "c", verdicts: ["failed", "errored", "failed"], passed: 0, trials: 3 },
    ]);
  });

  it("keeps a bounded list of flaky cases and counts the rest", () => {
    const acc = new TrialAccumulator("qa", { maxFlaky: 2, ks: [1] });
    for (let i = 0; i < 5; i++) {
      acc.add(attempt(`c${i}`, 0, "passed", 1));
      acc.add(attempt(`c${i}`, 1, "failed", 0));
    }
    const summary = acc.finish();
    expect(summary.flaky).toMatchObject({ count: 5, truncated: true });
    expect(summary.flaky.cases.map((c) => c.caseId)).toEqual(["c0", "c1"]);
    expect(summary.byK.map((r) => r.k)).toEqual([1]);
  });

  it("does not call a case flaky for a skipped trial; counts only the trials that ran", () => {
    const acc = new TrialAccumulator("qa");
    acc.add(attempt("steady", 0, "skipped", null));
    acc.add(attempt("steady", 1, "passed", 1));
    acc.add(attempt("steady", 2, "passed", 1));
    acc.add(attempt("shaky", 0, "skipped", null));
    acc.add(attempt("shaky", 1, "passed", 1));
    acc.add(attempt("shaky", 2, "failed", 0));
    const summary = acc.finish();
    expect(summary.flaky.count).toBe(1);
    expect(summary.flaky.cases).toEqual([
      { caseId: "shaky", verdicts: ["skipped", "passed", "failed"], passed: 1, trials: 2 },
    ]);
  });

  it("leaves trials the run's stop cut off out of every reducer, as skipped ones: they were not judged", () => {
    const acc = new TrialAccumulator("qa");
    const cut = (caseId: string, trial: number) => {
      const record = attempt(caseId, trial, "errored", null);
      record.error = { message: "the run was stopped", where: "target", interrupted: true };
      return record;
    };
    acc.add(attempt("steady", 0, "passed", 1));
    acc.add(cut("steady", 1));
    acc.add(attempt("never-judged", 0, "errored", null));
    acc.add(cut("never-judged", 0));
    acc.add(cut("cut-only", 0));
    const summary = acc.finish();
    // "steady" passed its one judged trial (not flaky, all passed); "never-judged" errored by
    // itself once (that counts, as a target that throws); "cut-only" has no judged trial at all.
    expect(summary).toMatchObject({ cases: 2, attempts: 5, interrupted: 3, skipped: 0 });
    expect(summary.flaky.count).toBe(0);
    expect(summary.allPassed.value).toBe(0.5);
    expect(summary.spread?.passed).toMatchObject({ cases: 2, n: 2, c: 1 });
  });

  it("leaves skipped trials out of n and reports an empty eval", () => {
    const acc = new TrialAccumulator("qa");
    acc.add(attempt("a", 0, "skipped", null));
    acc.add(attempt("a", 1, "passed", 1));
    const summary = acc.finish();
    expect(summary.cases).toBe(1);
    expect(summary).toMatchObject({ attempts: 2, skipped: 1 });
    expect(summary.trials).toEqual({ min: 1, max: 1 });
    expect(new TrialAccumulator("none").finish()).toMatchObject({
      cases: 0,
      byK: [],
      allPassed: { value: null, cases: 0, interval: null },
    });
  });

  it("gives pass@1 the pass rate's interval, and every share Wilson's over cases at 0% or 100%", () => {
    const acc = new TrialAccumulator("qa");
    // 12 cases run 4 times: pass shares 4/4 (6 cases), 3/4 (3), 1/4 (2) and 0/4 (1).
    const shares = [4, 4, 4, 4, 4, 4, 3, 3, 3, 1, 1, 0];
    for (const [i, passed] of shares.entries())
      for (let trial = 0; trial < 4; trial++)
        acc.add(
          attempt(`c${i}`, trial, trial < passed ? "passed" : "failed", trial < passed ? 1 : 0),
        );
    const summary = acc.finish();
    const passed = shares.reduce((a, b) => a + b, 0);
    expect(summary.spread!.passed).toMatchObject({ cases: 12, n: 48, c: passed });
    const rate = passRateInterval(passed, 48, 12, summary.spread!.passed)!;
    const [k1] = summary.byK;
    for (const reducer of [k1!.passAtK, k1!.passHatK]) {
      expect(reducer.interval!.method).toBe("wilson");
      expect(reducer.interval!.low).toBeCloseTo(rate.low, 12);
      expect(reducer.interval!.high).toBeCloseTo(rate.high, 12);
    }
    // pass@4 of these cases is 11 of 12, each case one draw: Wilson's over the cases.
    const k4 = summary.byK.find((r) => r.k === 4)!;
    expect(k4.passAtK.value).toBeCloseTo(11 / 12, 12);
    expect(k4.passAtK.interval!.low).toBeCloseTo(wilsonInterval(11, 12)!.low, 12);
    expect(summary.anyPassed.interval!.low).toBeCloseTo(wilsonInterval(11, 12)!.low, 12);
    expect(summary.allPassed.interval!.low).toBeCloseTo(wilsonInterval(6, 12)!.low, 12);
    // Every case passing once: 100% has Wilson's width, not none.
    const steady = new TrialAccumulator("qa");
    for (let i = 0; i < 5; i++)
      for (let t = 0; t < 2; t++) steady.add(attempt(`c${i}`, t, "passed", 1));
    const { byK } = steady.finish();
    expect(byK[0]!.passAtK.interval).toEqual(wilsonInterval(5, 5));
  });

  it("keeps per-case sums of the scores for the mean score's interval", () => {
    const acc = new TrialAccumulator("qa");
    acc.add(attempt("a", 0, "passed", 1));
    acc.add(attempt("a", 1, "failed", 0.5));
    acc.add(attempt("b", 0, "failed", 0));
    acc.add(attempt("b", 1, "skipped", null));
    acc.add(attempt("c", 0, "errored", null));
    // Mean of the three scores 0.5; case sums 1.5 over 2 and 0 over 1.
    const { spread, scoredCases } = acc.finish();
    expect(scoredCases).toBe(2);
    expect(spread!.scores.cases).toBe(2);
    expect(spread!.scores.n).toBe(3);
    expect(spread!.scores.residuals).toBeCloseTo((1.5 - 2 * 0.5) ** 2 + (0 - 0.5) ** 2, 12);
    expect(spread!.passed).toEqual({ cases: 3, n: 4, c: 1, cc: 1, cn: 2, nn: 6 });
  });
});
