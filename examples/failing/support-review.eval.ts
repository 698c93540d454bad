import {
  type Recording,
  recordedConversation,
  replay,
} from "../support-review/recorded-conversation.js";
import { createSupportReview } from "../support-review/support-review.js";

const undelivered: Recording = {
  ...recordedConversation,
  speeches: recordedConversation.speeches.map((speech) => ({
    ...speech,
    delivered: speech.actorId !== "agent",
  })),
};

/**
 * The seed's support review when none of the agent's replies reached the customer:
 * the delivery gate fails (the attempt fails) and the points earned elsewhere are kept.
 */
export const supportReviewUndelivered = createSupportReview(replay(undelivered)).evaluation;
