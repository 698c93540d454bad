import { describe, expect, it } from "vitest";
import type { Judgment } from "./record.js";
import { decideVerdict, summarizeScore } from "./summarize.js";

const j = (over: Partial<Judgment>): Judgment => ({
  label: "x",
  source: "check",
  state: "matched",
  gate: false,
  points: 0,
  earned: 0,
  reason: "",
  ...over,
});

describe("summarizeScore", () => {
  it("reads a judgment without a reason (a record built by hand) as its state, not a crash", () => {
    const reasonless = j({ label: "lat", points: 5, earned: null, state: "unavailable" });
    delete (reasonless as { reason?: string }).reason;
    expect(summarizeScore([j({ points: 5, earned: 5 }), reasonless])).toEqual({
      state: "partial",
      earned: 5,
      max: 10,
      reasons: ["lat: unavailable"],
    });
  });

  it("is complete when every judgment with points has evidence", () => {
    expect(
      summarizeScore([
        j({ points: 5, earned: 5 }),
        j({ points: 45, earned: 22.5 }),
        j({ gate: true }),
      ]),
    ).toEqual({
      state: "complete",
      earned: 27.5,
      max: 50,
      reasons: [],
    });
  });

  it("keeps unavailable weight in max and says why: a lower bound, not a zero", () => {
    const score = summarizeScore([
      j({ label: "a", points: 5, earned: 5 }),
      j({
        label: "b",
        points: 50,
        earned: null,
        state: "unavailable",
        reason: "completion unknown",
      }),
    ]);
    expect(score).toEqual({
      state: "partial",
      earned: 5,
      max: 55,
      reasons: ["b: completion unknown"],
    });
  });

  it("is unavailable when nothing with points had evidence", () => {
    expect(
      summarizeScore([j({ points: 3, earned: null, state: "unavailable", reason: "r" })]).state,
    ).toBe("unavailable");
  });

  it("has no points at all when only gates were checked", () => {
    expect(summarizeScore([j({ gate: true })])).toMatchObject({ state: "complete", max: 0 });
  });
});

describe("decideVerdict", () => {
  it("orders errored > failed > skipped > passed", () => {
    const failedGate = j({ gate: true, state: "mismatched" });
    const crashed = j({ state: "errored" });
    const missingGate = j({ gate: true, state: "unavailable" });
    expect(decideVerdict([failedGate, crashed])).toBe("errored");
    expect(decideVerdict([failedGate, missingGate])).toBe("errored");
    expect(decideVerdict([failedGate], { skipped: true })).toBe("failed");
    expect(decideVerdict([j({})], { skipped: true })).toBe("skipped");
    expect(decideVerdict([j({ state: "mismatched" })])).toBe("passed");
    expect(decideVerdict([], { crashed: true })).toBe("errored");
  });

  it("does not fail an attempt for missing evidence outside gates", () => {
    expect(decideVerdict([j({ points: 5, earned: null, state: "unavailable" })])).toBe("passed");
  });
});
