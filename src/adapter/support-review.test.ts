import { describe, expect, it } from "vitest";
import {
  type Recording,
  recordedConversation,
  replay,
} from "../../examples/support-review/recorded-conversation.js";
import { createSupportReview } from "../../examples/support-review/support-review.js";
import type { Judgment } from "../eval/record.js";
import type { CloseQAJudge } from "../judge/types.js";

const byLabel = (judgments: readonly Judgment[], label: string) => {
  const found = judgments.find((j) => j.label === label);
  if (!found) throw new Error(`no judgment labelled ${label}`);
  return found;
};

describe("the seed's createSupportReview, unchanged", () => {
  it("passes with a partial score when no judge is configured", async () => {
    const { evaluation } = createSupportReview(replay(recordedConversation));
    const seen: string[] = [];
    const record = await evaluation.run({ onJudgment: (j) => seen.push(j.label) });

    expect(record.verdict).toBe("passed");
    expect(record.evalId).toBe(
      "support-review.support-speech-quality-and-task-completion-efficiency",
    );
    expect(seen).toEqual([
      "Participation",
      "At least one delivery",
      "Expression quality",
      "Completion duration",
      "Usage limit",
      "Runtime limit",
    ]);
    const participation = byLabel(record.judgments, "Participation");
    expect(participation).toMatchObject({
      state: "matched",
      gate: false,
      points: 5,
      earned: 5,
      source: "t.said",
    });
    expect(byLabel(record.judgments, "At least one delivery").source).toBe("t.speechDelivery");
    expect(byLabel(record.judgments, "Usage limit").source).toBe("t.check");
    expect(byLabel(record.judgments, "At least one delivery")).toMatchObject({
      state: "matched",
      gate: true,
      points: 0,
    });
    const quality = byLabel(record.judgments, "Expression quality");
    expect(quality).toMatchObject({
      state: "unavailable",
      points: 45,
      earned: null,
      source: "t.closeQA",
    });
    expect(quality.reason).toMatch(/^judge-unconfigured/);
    const completion = byLabel(record.judgments, "Completion duration");
    expect(completion.earned).toBeCloseTo((1 - 95 / 180) * 50, 6);
    expect(byLabel(record.judgments, "Usage limit")).toMatchObject({
      state: "matched",
      gate: true,
    });
    expect(record.usage.app.totalTokens).toEqual({ state: "available", value: 2410 + 712 });

    expect(record.score.state).toBe("partial");
    expect(record.score.max).toBe(100);
    expect(record.score.earned).toBeCloseTo(5 + (1 - 95 / 180) * 50, 6);
    expect(record.score.reasons).toEqual([
      expect.stringMatching(/^Expression quality: judge-unconfigured/),
    ]);
  });

  it("earns the judged points when a judge answers, and records its usage", async () => {
    const judge: CloseQAJudge = async ({ material, question }) => ({
      state:
        material.includes("refunded") && question.startsWith("Is every")
          ? "satisfied"
          : "not-satisfied",
      reason: "every agent utterance is complete and polite",
      audit: { question },
      usage: {
        calls: 1,
        cachedCalls: 0,
        retries: 0,
        inputTokens: 300,
        outputTokens: 20,
        latencyMs: 5,
      },
    });
    const { evaluation } = createSupportReview(replay(recordedConversation));
    const record = await evaluation.run({ judge });
    const quality = byLabel(record.judgments, "Expression quality");
    expect(quality).toMatchObject({ state: "matched", earned: 45, value: 1 });
    expect(quality.judge?.inputTokens).toBe(300);
    expect(quality.detail).toMatchObject({
      audit: { question: expect.any(String) },
      material: { items: 4 },
    });
    expect(record.usage.judge.calls).toBe(1);
    expect(record.score.state).toBe("complete");
    expect(record.score.earned).toBeCloseTo(50 + (1 - 95 / 180) * 50, 6);
  });

  it("fails the delivery gate but keeps the points earned elsewhere", async () => {
    const undelivered: Recording = {
      ...recordedConversation,
      speeches: recordedConversation.speeches.map((s) => ({
        ...s,
        delivered: s.actorId !== "agent",
      })),
    };
    const record = await createSupportReview(replay(undelivered)).evaluation.run();
    expect(record.verdict).toBe("failed");
    expect(byLabel(record.judgments, "At least one delivery")).toMatchObject({
      state: "mismatched",
      gate: true,
    });
    expect(byLabel(record.judgments, "Participation").earned).toBe(5);
    expect(record.score.earned).toBeGreaterThan(5);
  });

  it("keeps unknown completion in the maximum and errors on an unreported usage gate", async () => {
    const cut: Recording = {
      speeches: recordedConversation.speeches,
      observationCut: "observation-deadline",
    };
    const record = await createSupportReview(replay(cut)).evaluation.run();
    const completion = byLabel(record.judgments, "Completion duration");
    expect(completion).toMatchObject({ state: "unavailable", earned: null, points: 50 });
    expect(byLabel(record.judgments, "Usage limit")).toMatchObject({
      state: "unavailable",
      gate: true,
    });
    expect(byLabel(record.judgments, "Usage limit").reason).toMatch(/usage-unreported/);
    expect(record.verdict).toBe("errored");
    expect(record.score.state).toBe("partial");
    expect(record.score.max).toBe(100);
  });

  it("makes an adapter whose create throws an errored attempt with the message", async () => {
    const { evaluation } = createSupportReview(async () => {
      throw new Error("transcript store offline");
    });
    const record = await evaluation.run();
    expect(record.verdict).toBe("errored");
    // With where the adapter threw it (its first frame outside niceeval).
    expect(record.error?.message).toMatch(
      /^transcript store offline \(at .*support-review\.test\.ts:\d+:\d+\)\)$/,
    );
    expect(record.error?.where).toMatch(/create of adapter "support-review"/);
    expect(record.judgments).toEqual([]);
  });
});
