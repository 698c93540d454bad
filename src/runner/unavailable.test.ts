import { describe, expect, it } from "vitest";
import type { AttemptRecord, Judgment } from "../eval/record.js";
import { PLACES_PER_REASON, TOP_REASONS, UnavailableTally } from "./unavailable.js";

const judgment = (state: Judgment["state"], reason: string, label = "j"): Judgment => ({
  label,
  source: "scorer",
  state,
  gate: false,
  points: 1,
  earned: state === "matched" ? 1 : null,
  value: null,
  reason,
});
const record = (...judgments: Judgment[]) =>
  ({ evalId: "e", caseId: "c", judgments, score: { state: "partial" } }) as AttemptRecord;
const at = (judgment = "j") => ({ evalId: "e", caseId: "c", judgment, source: "scorer" });
const scored = (state: AttemptRecord["score"]["state"], ...judgments: Judgment[]) =>
  ({ judgments, score: { state } }) as AttemptRecord;

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
      scores: { partial: 2, unavailable: 0, complete: 0 },
      reasons: [
        { reason: "judge down: 503", count: 2, where: [at(), at()] },
        { reason: "no key", count: 1, where: [at()] },
      ],
    });
  });

  it("counts the attempts by the state of their score: a check with no points leaves it complete", () => {
    const tally = new UnavailableTally();
    tally.add(
      scored("complete", judgment("unavailable", "usage-unreported"), judgment("matched", "ok")),
    );
    tally.add(scored("partial", judgment("unavailable", "judge down")));
    tally.add(scored("unavailable", judgment("unavailable", "judge down")));
    tally.add(scored("complete", judgment("matched", "ok")));
    expect(tally.summary().scores).toEqual({ partial: 1, unavailable: 1, complete: 1 });
  });

  it("groups one cause across the scorers it made unavailable", () => {
    const tally = new UnavailableTally();
    const why = "judge-unconfigured: ANTHROPIC_API_KEY is not set";
    tally.add(
      record(
        judgment("unavailable", `scorer "expectations": ${why}`, "expectations"),
        judgment("unavailable", `scorer "helpful "tone"": ${why}`, 'helpful "tone"'),
        judgment("unavailable", why),
      ),
    );
    // The scorers the grouped reason no longer names are in where it hit.
    expect(tally.summary().reasons).toEqual([
      { reason: why, count: 3, where: [at("expectations"), at('helpful "tone"'), at()] },
    ]);
  });

  it("names the eval, case, trial and judgment of the first judgments each reason hit, no more", () => {
    const tally = new UnavailableTally();
    for (let trial = 0; trial < 5; trial++)
      tally.add({
        ...record(judgment("unavailable", "judge down", "Refund stated")),
        evalId: "reply-quality",
        caseId: "default",
        trial,
        judgments: [
          { ...judgment("unavailable", "judge down", "Refund stated"), source: "t.closeQA" },
        ],
      });
    const [reason] = tally.summary().reasons;
    expect(reason?.count).toBe(5);
    expect(reason?.where).toHaveLength(PLACES_PER_REASON);
    expect(reason?.where[1]).toEqual({
      evalId: "reply-quality",
      caseId: "default",
      trial: 1,
      judgment: "Refund stated",
      source: "t.closeQA",
    });
  });

  it("keeps the top reasons and bounds how many distinct ones it holds", () => {
    const tally = new UnavailableTally();
    for (let i = 0; i < 1500; i++) tally.add(record(judgment("unavailable", `reason ${i}`)));
    const summary = tally.summary();
    expect(summary.judgments).toBe(1500);
    expect(summary.reasons).toHaveLength(TOP_REASONS);
    expect(summary.reasons[0]).toMatchObject({ reason: "(other reasons)", count: 500 });
  });
});
