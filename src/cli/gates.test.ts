import { describe, expect, it } from "vitest";
import { emptyJudgeUsage } from "../eval/record.js";
import type { EvalSummary } from "../runner/events.js";
import { evalGates, unmetGates } from "./gates.js";

const summary = (over: Partial<EvalSummary>): EvalSummary => ({
  evalId: "qa",
  style: "suite",
  cases: 3,
  passed: 3,
  failed: 0,
  errored: 0,
  skipped: 0,
  meanScore: 1,
  sdScore: 0,
  scoredCases: 3,
  partialCases: 0,
  judge: emptyJudgeUsage(),
  elapsedMs: 1,
  ...over,
});

describe("unmetGates", () => {
  it("meets a threshold the mean equals but for floating-point rounding", () => {
    const mean = (0.7 + 0.7 + 0.7) / 3;
    expect(mean).toBeLessThan(0.7);
    expect(unmetGates([summary({ meanScore: mean })], { minScore: 0.7 })).toEqual([]);
    // Ten scores of 0.1 fall under 0.1 the same way.
    const tenths = Array.from({ length: 10 }, () => 0.1).reduce((a, b) => a + b) / 10;
    expect(tenths).toBeLessThan(0.1);
    expect(unmetGates([summary({ meanScore: tenths })], { minScore: 0.1 })).toEqual([]);
  });

  it("prints a mean just under the threshold with the digits that show it is under", () => {
    const [gate] = unmetGates([summary({ meanScore: 0.69996 })], { minScore: 0.7 });
    expect(gate?.message).toBe('eval "qa": mean score 0.69996 (n=3) is below --min-score 0.7');
    const [plain] = unmetGates([summary({ meanScore: 0.5 })], { minScore: 0.7 });
    expect(plain?.message).toBe('eval "qa": mean score 0.500 (n=3) is below --min-score 0.7');
  });

  it("prints a pass rate just under the threshold the same way", () => {
    const [gate] = unmetGates([summary({ passed: 2, failed: 1 })], { minPassRate: 0.667 });
    expect(gate?.message).toBe('eval "qa": pass rate 66.67% (2/3) is below --min-pass-rate 0.667');
    expect(unmetGates([summary({ passed: 2, failed: 1 })], { minPassRate: 2 / 3 })).toEqual([]);
  });

  it("leaves the attempts a stop cut off out of the pass rate, as the reports do", () => {
    // 11 passed, 8 cut off: 100% of 11, not 57.9% of 19.
    const stopped = summary({ cases: 19, passed: 11, errored: 8, interrupted: 8 });
    expect(unmetGates([stopped], { minPassRate: 0.9 })).toEqual([]);
    // A target that threw is still an attempt that did not pass.
    const [threw] = unmetGates([summary({ cases: 19, passed: 11, errored: 8 })], {
      minPassRate: 0.9,
    });
    expect(threw?.message).toMatch(/pass rate 57\.9% \(11\/19\)/);
  });

  it("checks no gate on a stopped run's figures, met or not, and says why with the figure", () => {
    const stopped = summary({ cases: 19, passed: 11, errored: 8, interrupted: 8 });
    const gates = evalGates([stopped], { minPassRate: 0.9, minScore: 0.5 }, true);
    expect(gates.checked).toEqual(['--min-pass-rate: eval "qa"', '--min-score: eval "qa"']);
    expect(gates.unmet).toEqual([
      {
        name: '--min-pass-rate: eval "qa"',
        message:
          'eval "qa": --min-pass-rate 0.9 not checked: the run was stopped, and its pass rate 100.0% (11/11; 8 attempts cut off by the stop left out) is of the attempts judged before the stop, not of its cases; run it again to its end to check it',
      },
      {
        name: '--min-score: eval "qa"',
        message:
          'eval "qa": --min-score 0.5 not checked: the run was stopped, and its mean score 1.000 (n=3) is of the attempts judged before the stop, not of its cases; run it again to its end to check it',
      },
    ]);
  });

  it("says a stopped eval's mean over partial scores is a lower bound, as when it is checked", () => {
    const partial = { cases: 3, passed: 3, meanScore: 0.5, scoredCases: 3, partialCases: 2 };
    const [checked] = unmetGates([summary(partial)], { minScore: 0.7 });
    expect(checked?.message).toContain("(a lower bound: some scores are partial)");
    const stopped = evalGates([summary({ ...partial, interrupted: 0 })], { minScore: 0.7 }, true);
    expect(stopped.unmet[0]?.message).toBe(
      'eval "qa": --min-score 0.7 not checked: the run was stopped, and its mean score 0.500 (n=3) (a lower bound: some scores are partial) is of the attempts judged before the stop, not of its cases; run it again to its end to check it',
    );
  });

  it("lists both gates of a stopped eval whose every attempt was cut off, saying none was judged", () => {
    // Both attempts cut off: no pass rate, no mean score, and neither gate may go unlisted.
    const allCut = summary({
      cases: 2,
      passed: 0,
      errored: 2,
      interrupted: 2,
      meanScore: null,
      sdScore: null,
      scoredCases: 0,
    });
    const gates = evalGates([allCut], { minPassRate: 0.9, minScore: 0.5 }, true);
    expect(gates.checked).toEqual(['--min-pass-rate: eval "qa"', '--min-score: eval "qa"']);
    expect(gates.unmet).toEqual([
      {
        name: '--min-pass-rate: eval "qa"',
        message:
          'eval "qa": --min-pass-rate 0.9 not checked: the run was stopped, and no attempt of it was judged before the stop (2 attempts cut off by the stop), so it has no pass rate; run it again to its end to check it',
      },
      {
        name: '--min-score: eval "qa"',
        message:
          'eval "qa": --min-score 0.5 not checked: the run was stopped, and no attempt of it was judged before the stop (2 attempts cut off by the stop), so it has no mean score; run it again to its end to check it',
      },
    ]);
    // The same eval in a run that was not stopped (its errored attempts' scores unavailable):
    // --min-score cannot be met, as before.
    const errored = { ...allCut, interrupted: 0, unscoredCases: 2 };
    expect(unmetGates([errored], { minScore: 0.5 })[0]?.message).toBe(
      'eval "qa": no attempt has a score, so --min-score 0.5 cannot be met',
    );
  });

  it("says a stopped eval's judged attempts had no score, when none had", () => {
    const unscored = summary({ meanScore: null, sdScore: null, scoredCases: 0 });
    const [, score] = evalGates([unscored], { minPassRate: 0.9, minScore: 0.5 }, true).unmet;
    expect(score?.message).toBe(
      'eval "qa": --min-score 0.5 not checked: the run was stopped, and no attempt of it judged before the stop has a score, so it has no mean score; run it again to its end to check it',
    );
  });
});

describe("--min-score on an eval without a mean score", () => {
  const none = { meanScore: null, sdScore: null, scoredCases: 0 };

  it("does not hold an eval without points to it (gates only, or all skipped)", () => {
    for (const s of [summary(none), summary({ ...none, passed: 0, skipped: 3 })]) {
      expect(evalGates([s], { minScore: 0.5 })).toEqual({ checked: [], unmet: [] });
    }
  });

  it("fails an eval whose scores were unavailable: missing evidence passes no gate", () => {
    expect(evalGates([summary({ ...none, unscoredCases: 2 })], { minScore: 0.5 })).toEqual({
      checked: ['--min-score: eval "qa"'],
      unmet: [
        {
          name: '--min-score: eval "qa"',
          message: 'eval "qa": no attempt has a score, so --min-score 0.5 cannot be met',
        },
      ],
    });
  });
});

describe("an eval whose dataset was not read whole", () => {
  const unread = {
    afterCases: 20,
    message: 'reading the cases of eval "qa" failed: SyntaxError: bad JSON',
  };
  // 20 cases passed and the (cases) attempt errored: 95.2%, over any threshold below it.
  const broken = summary({ cases: 21, passed: 20, errored: 1, scoredCases: 20, unread });

  it("meets no --min-pass-rate or --min-score, saying after how many cases reading stopped", () => {
    const gates = evalGates([broken], { minPassRate: 0.9, minScore: 0.5 });
    expect(gates.checked).toEqual(['--min-pass-rate: eval "qa"', '--min-score: eval "qa"']);
    expect(gates.unmet.map((g) => g.name)).toEqual(gates.checked);
    expect(gates.unmet[0]?.message).toBe(
      'eval "qa": its dataset was not read whole (reading stopped after 20 cases: reading the cases of eval "qa" failed: SyntaxError: bad JSON), so the cases after them never ran and --min-pass-rate 0.9 cannot be met; fix the dataset and run again',
    );
    expect(unmetGates([broken], { minPassRate: 0 })).toHaveLength(1);
  });

  it("says none ran when reading stopped before the first case", () => {
    const none = summary({ cases: 1, passed: 0, errored: 1, scoredCases: 0, meanScore: null });
    const [gate] = unmetGates([{ ...none, unread: { ...unread, afterCases: 0 } }], {
      minScore: 0,
    });
    expect(gate?.message).toMatch(
      /reading stopped after 0 cases: .*\), so no case of it ran and --min-score 0 cannot be met/,
    );
  });
});
