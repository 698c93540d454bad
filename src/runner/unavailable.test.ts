import { describe, expect, it } from "vitest";
import type { AttemptRecord, Judgment } from "../eval/record.js";
import { TOP_REASONS, UnavailableTally } from "./unavailable.js";

const judgment = (state: Judgment["state"], reason: string): Judgment => ({
  label: "j",
  source: "scorer",
  state,
  gate: false,
  points: 1,
  earned: state === "matched" ? 1 : null,
  value: null,
  reason,
});
const record = (...judgments: Judgment[]) => ({ judgments }) as AttemptRecord;

describe("UnavailableTally", () => {
  it("counts unavailable judgments and their attempts, grouped by reason, most frequent first", () => {
    const tally = new UnavailableTally();
    tally.add(record(judgment("unavailable", "judge down: 503"), judgment("matched", "ok")));
    tally.add(
      record(judgment("unavailable", "judge down: 503"), judgment("unavailable", "no key\nset X")),
    );
    tally.add(record(judgment("matched", "ok")));
    expect(tally.summary()).toEqual({
      judgments: 3,
      attempts: 2,
      reasons: [
        { reason: "judge down: 503", count: 2 },
        { reason: "no key", count: 1 },
      ],
    });
  });

  it("groups one cause across the scorers it made unavailable", () => {
    const tally = new UnavailableTally();
    const why = "judge-unconfigured: ANTHROPIC_API_KEY is not set";
    tally.add(
      record(
        judgment("unavailable", `scorer "expectations": ${why}`),
        judgment("unavailable", `scorer "helpful "tone"": ${why}`),
        judgment("unavailable", why),
      ),
    );
    expect(tally.summary().reasons).toEqual([{ reason: why, count: 3 }]);
  });

  it("keeps the top reasons and bounds how many distinct ones it holds", () => {
    const tally = new UnavailableTally();
    for (let i = 0; i < 1500; i++) tally.add(record(judgment("unavailable", `reason ${i}`)));
    const summary = tally.summary();
    expect(summary.judgments).toBe(1500);
    expect(summary.reasons).toHaveLength(TOP_REASONS);
    expect(summary.reasons[0]).toEqual({ reason: "(other reasons)", count: 500 });
  });
});
