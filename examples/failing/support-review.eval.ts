import { atLeast, countWhere, equals } from "niceeval/expect";
import {
  type Recording,
  recordedConversation,
  replay,
} from "../support-review/recorded-conversation.js";
import { actorMatch, createSupportReview } from "../support-review/support-review.js";

const undelivered: Recording = {
  ...recordedConversation,
  speeches: recordedConversation.speeches.map((speech) => ({
    ...speech,
    delivered: speech.actorId !== "agent",
  })),
};

/**
 * The seed's support review when none of the agent's replies reached the customer: the delivery
 * gate fails (the attempt fails) and the points earned elsewhere are kept. Its own id: the seed's
 * `evaluation` derives one id for every review it makes, which examples/support-review takes.
 */
export const supportReviewUndelivered = createSupportReview(
  replay(undelivered),
).adapter.defineScoreEval({
  id: "failing.support-review.undelivered",
  description: "Support review when no reply of the agent was delivered",
  test(t) {
    t.said(actorMatch("agent")).score(5).label("Participation");
    t.speechDelivery(actorMatch("agent"), countWhere(equals(true), atLeast(1)))
      .gate()
      .label("At least one delivery");
    const completion = t.completion;
    t.score(
      completion.state === "unavailable"
        ? { state: "unavailable", reason: completion.reason }
        : completion.value.completed
          ? Math.max(0, 1 - completion.value.businessSeconds / 180)
          : 0,
      { weight: 50 },
    ).label("Completion duration");
  },
});
