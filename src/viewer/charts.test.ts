import { describe, expect, it } from "vitest";
import { judgment, record } from "../report/test-support/runs.js";
import { addShareCase, emptyShareSums, passRateInterval } from "../stats/clustered.js";
import { wilsonInterval } from "../stats/interval.js";
import { ChartFold } from "./charts.js";

describe("ChartFold: pass rate per scorer", () => {
  it("leaves errored and unavailable judgments out of a scorer's rate, as every mean does", () => {
    const fold = new ChartFold();
    const states = [
      "errored",
      "errored",
      "matched",
      "matched",
      "unavailable",
      "mismatched",
    ] as const;
    states.forEach((state, i) => {
      fold.add(record({ caseId: `c${i}`, judgments: [judgment({ label: "flaky", state })] }));
    });
    const [flaky] = fold.result().scorers;
    // Two matched of the three that got a verdict: a scorer that crashed on two inputs is not
    // a scorer that judged them wrong.
    expect(flaky).toMatchObject({
      matched: 2,
      mismatched: 1,
      errored: 2,
      unavailable: 1,
      judged: 3,
      cases: 3,
      passRate: 2 / 3,
    });
    expect(flaky!.passRateInterval).toEqual(wilsonInterval(2, 3));
  });

  it("with trials, gives a scorer's rate the interval a pass rate over the same cases has", () => {
    const fold = new ChartFold();
    // 20 cases run 3 times: the scorer matches 3, 2, 1 or 0 trials of a case.
    const matched = Array.from({ length: 20 }, (_, i) => [3, 3, 2, 1, 0][i % 5]!);
    const sums = emptyShareSums();
    for (const [i, m] of matched.entries()) {
      addShareCase(sums, m, 3);
      for (let trial = 0; trial < 3; trial++)
        fold.add(
          record({
            caseId: `c${i}`,
            trial,
            judgments: [judgment({ label: "exact", state: trial < m ? "matched" : "mismatched" })],
          }),
        );
    }
    const [exact] = fold.result().scorers;
    expect(exact).toMatchObject({ matched: 36, judged: 60, cases: 20 });
    expect(exact!.passRateInterval).toEqual(passRateInterval(36, 60, 20, sums));
    // Not the cautious one of the counts alone: the trials of a case disagree.
    expect(exact!.passRateInterval).not.toEqual(passRateInterval(36, 60, 20));
  });

  it("leaves out the judgments of an attempt the run's stop cut off: they judged the interruption", () => {
    const fold = new ChartFold();
    fold.add(
      record({ caseId: "done", judgments: [judgment({ label: "exact", state: "matched" })] }),
    );
    fold.add(
      record({
        caseId: "cut",
        verdict: "errored",
        score: { state: "unavailable", earned: 0, max: 1, reasons: [] },
        error: { message: "the run was stopped", where: "target", interrupted: true },
        judgments: [judgment({ label: "exact", state: "mismatched" })],
      }),
    );
    const [exact] = fold.result().scorers;
    expect(exact).toMatchObject({ matched: 1, mismatched: 0, judged: 1, passRate: 1 });
    // Its score is no measurement either: counted apart, never binned.
    expect(fold.result().evals[0]).toMatchObject({ unavailable: 1 });
  });

  it("has no rate for a scorer that only errored", () => {
    const fold = new ChartFold();
    fold.add(record({ judgments: [judgment({ label: "thrower", state: "errored" })] }));
    expect(fold.result().scorers[0]).toMatchObject({ judged: 0, passRate: null, errored: 1 });
  });
});
