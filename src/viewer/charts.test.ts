import { describe, expect, it } from "vitest";
import { judgment, record } from "../report/test-support/runs.js";
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

  it("has no rate for a scorer that only errored", () => {
    const fold = new ChartFold();
    fold.add(record({ judgments: [judgment({ label: "thrower", state: "errored" })] }));
    expect(fold.result().scorers[0]).toMatchObject({ judged: 0, passRate: null, errored: 1 });
  });
});
