import { describe, expect, it } from "vitest";
import * as directions from "../../examples/directions/directions.eval.js";
import * as failingDirections from "../../examples/failing/directions.eval.js";
import * as failingSupport from "../../examples/failing/support-review.eval.js";
import * as support from "../../examples/support-review/support-review.eval.js";
import type { AttemptRecord, Judgment } from "../eval/record.js";
import { isRunnable } from "../eval/runnable.js";

const judgment = (record: AttemptRecord, label: string): Judgment => {
  const found = record.judgments.find((j) => j.label === label);
  if (!found) throw new Error(`no judgment "${label}" in ${record.evalId}`);
  return found;
};

describe("score-eval examples", () => {
  it("are discovered as runnable score evals with one case each", async () => {
    for (const module of [directions, failingDirections, failingSupport, support]) {
      for (const value of Object.values(module)) {
        expect(isRunnable(value)).toBe(true);
        expect(value.style).toBe("score");
        const cases = [];
        for await (const spec of value.cases()) cases.push(spec);
        expect(cases).toHaveLength(1);
      }
    }
  });

  it("directions baseline: gates hold, judged questions wait for a judge (5 of 10, partial)", async () => {
    const record = await directions.directions.run();
    expect(record.verdict).toBe("passed");
    expect(judgment(record, "1. A asked B the way")).toMatchObject({
      state: "matched",
      gate: true,
    });
    expect(judgment(record, "3. Independent completion")).toMatchObject({
      state: "matched",
      gate: true,
      earned: 5,
    });
    expect(judgment(record, "2a. Expression").reason).toMatch(/^judge-unconfigured/);
    expect(judgment(record, "Records complete and correlated").state).toBe("matched");
    expect(record.score).toMatchObject({ state: "partial", earned: 5, max: 10 });
  });

  it("directions with unknown speech origin reports it without failing a gate", async () => {
    const record = await directions.directionsUnknownOrigin.run();
    expect(record.verdict).toBe("passed");
    expect(judgment(record, "2c. A's speech has a verified model origin")).toMatchObject({
      state: "mismatched",
      gate: false,
      points: 0,
    });
  });

  it("directions with an incomplete record decides checkpoint 1 from what was seen", async () => {
    const record = await directions.directionsIncompleteEvidence.run();
    expect(record.verdict).toBe("passed");
    expect(judgment(record, "1. A asked B the way").state).toBe("matched");
    expect(judgment(record, "2a. Expression").reason).toMatch(
      /^material incomplete: .*recorder-capacity/,
    );
    expect(judgment(record, "Records complete and correlated").state).toBe("mismatched");
    expect(record.score).toMatchObject({ state: "partial", earned: 5, max: 10 });
  });

  it("failing directions: asking someone else fails the gate and keeps 5 points", async () => {
    const record = await failingDirections.directionsAskedSomeoneElse.run();
    expect(record.verdict).toBe("failed");
    expect(judgment(record, "1. A asked B the way").state).toBe("mismatched");
    expect(record.score.earned).toBe(5);
  });

  it("failing directions: player movement does not count", async () => {
    const record = await failingDirections.directionsPlayerMoved.run();
    expect(record.verdict).toBe("failed");
    expect(judgment(record, "3. Independent completion")).toMatchObject({
      state: "mismatched",
      earned: 0,
    });
    expect(judgment(record, "3a. A's model chose to move").state).toBe("mismatched");
  });

  it("failing directions: an unattributable move leaves the gate unavailable (errored)", async () => {
    const record = await failingDirections.directionsUnknownDecisionOrigin.run();
    expect(record.verdict).toBe("errored");
    expect(judgment(record, "3. Independent completion").reason).toMatch(
      /^decision-origin-unknown/,
    );
  });

  it("failing support review: an undelivered conversation fails with points retained", async () => {
    const record = await failingSupport.supportReviewUndelivered.run();
    expect(record.verdict).toBe("failed");
    expect(record.score.earned).toBeGreaterThan(0);
  });

  it("support review with an early cut keeps completion's weight in the maximum", async () => {
    const record = await support.supportReviewObservationCut.run();
    expect(record.verdict).toBe("passed");
    expect(record.score).toMatchObject({ state: "partial", earned: 5, max: 55 });
  });
});
