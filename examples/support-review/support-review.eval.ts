import { atMost } from "niceeval/expect";
import { recordedConversation, replay } from "./recorded-conversation.js";
import { actorMatch, createSupportReview } from "./support-review.js";

/**
 * The seed's support review over a recorded conversation. Without a configured judge the
 * expression question is unavailable: the score is partial and every gate holds, so it passes.
 */
export const supportReview = createSupportReview(replay(recordedConversation)).evaluation;

/**
 * The same review when the observation ended before the ticket closed: completion is unknown,
 * so its 50 points stay in the maximum instead of becoming a zero.
 */
export const supportReviewObservationCut = createSupportReview(
  replay({
    speeches: recordedConversation.speeches.slice(0, 3),
    observationCut: "observation-deadline: recording stopped at 15:00 before the ticket closed",
    usage: { inputTokens: 1200, outputTokens: 300 },
  }),
).adapter.defineScoreEval({
  id: "support-review.observation-cut",
  description: "Support review when the observation ends early",
  test(t) {
    t.said(actorMatch("agent")).score(5).label("Participation");
    const completion = t.completion;
    t.score(
      completion.state === "unavailable"
        ? { state: "unavailable", reason: completion.reason }
        : completion.value.completed
          ? Math.max(0, 1 - completion.value.businessSeconds / 180)
          : 0,
      { weight: 50 },
    ).label("Completion duration");
    t.check(t.usage.totalTokens, atMost(10_000)).gate().label("Usage limit");
  },
});
