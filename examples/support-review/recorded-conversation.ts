import type { AdapterCreateContext } from "niceeval";
import type { Completion, Speech, SupportFacts } from "./support-review.js";

/** A support conversation as the application recorded it (ticket 4471: a late parcel). */
export const recordedConversation: Recording = {
  ticket: "4471",
  speeches: [
    {
      actorId: "customer",
      text: "Hi, my parcel 88-2041 was due Monday and it still hasn't arrived.",
      delivered: true,
      modelOrigin: "verified",
    },
    {
      actorId: "agent",
      text: "I'm sorry about the delay. Let me look up parcel 88-2041 for you.",
      delivered: true,
      modelOrigin: "verified",
    },
    {
      actorId: "agent",
      text: "It is held at the Leeds depot after a sorting fault; it leaves today and arrives tomorrow before noon.",
      delivered: true,
      modelOrigin: "verified",
    },
    {
      actorId: "customer",
      text: "OK. Can I get the shipping fee back?",
      delivered: true,
      modelOrigin: "verified",
    },
    {
      actorId: "agent",
      text: "Yes. I have refunded the 4.99 shipping fee to your card; it shows within 3 working days.",
      delivered: true,
      modelOrigin: "verified",
    },
    {
      actorId: "agent",
      text: "Is there anything else I can help with?",
      delivered: false,
      modelOrigin: "unknown",
    },
  ],
  completion: { completed: true, eventId: "evt-refund-issued", businessSeconds: 95 },
  usage: { inputTokens: 2410, outputTokens: 712 },
};

/** What a recording holds; `observationCut` says why the recording stopped early. */
export interface Recording {
  ticket?: string;
  speeches: readonly Speech[];
  completion?: Completion;
  observationCut?: string;
  usage?: { inputTokens: number; outputTokens: number };
}

/** Replays a recording as the application's facts, reporting its recorded token usage. */
export function replay(recording: Recording) {
  return async (ctx: AdapterCreateContext): Promise<SupportFacts> => {
    if (recording.usage) ctx.reportUsage(recording.usage);
    return {
      speeches: recording.observationCut
        ? { state: "partial", items: recording.speeches, reason: recording.observationCut }
        : { state: "complete", items: recording.speeches },
      completion: recording.completion
        ? { state: "available", value: recording.completion }
        : { state: "unavailable", reason: recording.observationCut ?? "completion-unrecorded" },
    };
  };
}
