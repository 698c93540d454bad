import { type AdapterCreateContext, defineAdapter } from "niceeval";
import {
  and,
  atMost,
  type BooleanMatch,
  countWhere,
  defineContextMatch,
  defineMaterialMatch,
  equals,
  filterWhere,
  includes,
  type MatchFact,
  type MaterialCollection,
  mapEach,
  mapValue,
  or,
} from "niceeval/expect";
import {
  type Action,
  officialMap,
  simulate,
  type Utterance,
  type WorldEvent,
  type WorldOptions,
} from "./world.js";

/** What the directions adapter observes in one attempt. */
export interface DirectionsFacts {
  readonly destination: string;
  readonly conversation: MaterialCollection<Utterance>;
  readonly actions: MaterialCollection<Action>;
  readonly events: MaterialCollection<WorldEvent>;
  /** The attempt id every record carries, when the records can be correlated. */
  readonly correlation: MatchFact<string>;
}

// ── Domain matches ───────────────────────────────────────────────────────────
export const speakerMatch = (id: string) =>
  mapValue("speakerMatch", (u: Utterance) => u.speakerId, equals(id));
export const recipientMatch = (id: string) =>
  mapValue("recipientMatch", (u: Utterance) => u.recipientId, equals(id));
export const intentMatch = (intent: Utterance["intent"]) =>
  mapValue("intentMatch", (u: Utterance) => u.intent, equals(intent));
export const deliveredMatch = () =>
  mapValue("deliveredMatch", (u: Utterance) => u.delivered, equals(true));
export const formalMatch = () => mapValue("formalMatch", (u: Utterance) => u.formal, equals(true));
export const actorMatch = (id: string) =>
  mapValue("actorMatch", (a: Action) => a.actorId, equals(id));
export const decidedByMatch = (who: Action["decidedBy"]) =>
  mapValue("decidedByMatch", (a: Action) => a.decidedBy, equals(who));
export const modelOutcomeMatch = (outcome: Action["modelOutcome"]) =>
  mapValue("modelOutcomeMatch", (a: Action) => a.modelOutcome, equals(outcome));
export const executedMatch = () =>
  mapValue("executedMatch", (a: Action) => a.executed, equals(true));
export const meetingMatch = (...ids: string[]) =>
  and(
    mapValue("eventKind", (e: WorldEvent) => e.kind, equals("met")),
    ...ids.map((id) => mapValue(`meets ${id}`, (e: WorldEvent) => e.actorIds, includes(id))),
  );

const capture = { maxItems: 1024, maxBytes: 256 * 1024, maxNodes: 65_536, maxDepth: 16 };

export const utterances = (match: BooleanMatch<Utterance, Utterance>) =>
  defineMaterialMatch<DirectionsFacts, Utterance>({
    name: "utterances",
    read: (ctx) => ctx.conversation,
    match,
    capture,
  });
export const actions = (match: BooleanMatch<Action, Action>) =>
  defineMaterialMatch<DirectionsFacts, Action>({
    name: "actions",
    read: (ctx) => ctx.actions,
    match,
    capture,
  });
export const events = (match: BooleanMatch<WorldEvent, WorldEvent>) =>
  defineMaterialMatch<DirectionsFacts, WorldEvent>({
    name: "events",
    read: (ctx) => ctx.events,
    match,
    capture,
  });

/** The delivered conversation together with the official map and the destination. */
type InformationItem =
  | Utterance
  | { readonly kind: "reference"; readonly map: typeof officialMap; readonly destination: string };
const informationMaterial = defineMaterialMatch<DirectionsFacts, InformationItem>({
  name: "delivered-conversation-with-map",
  read: (ctx): MaterialCollection<InformationItem> => {
    const reference = {
      kind: "reference" as const,
      map: officialMap,
      destination: ctx.destination,
    };
    const talk = ctx.conversation;
    if (talk.state === "unavailable") return talk;
    return talk.state === "partial"
      ? { state: "partial", items: [reference, ...talk.items], reason: talk.reason }
      : { state: "complete", items: [reference, ...talk.items] };
  },
  match: or(
    mapValue("reference", (item: InformationItem) => "kind" in item, equals(true)),
    mapValue(
      "delivered",
      (item: InformationItem) => "delivered" in item && item.delivered,
      equals(true),
    ),
  ),
  capture,
});

/** Prerequisite: every record is present, complete and carries this attempt's id. */
const recordsComplete = defineContextMatch<DirectionsFacts, DirectionsFacts>({
  name: "records-complete-and-correlated",
  read: (ctx) => ({ state: "available", value: ctx }),
  match: and(
    mapValue(
      "conversation record",
      (f: DirectionsFacts) => f.conversation.state,
      equals("complete"),
    ),
    mapValue("action record", (f: DirectionsFacts) => f.actions.state, equals("complete")),
    mapValue("event record", (f: DirectionsFacts) => f.events.state, equals("complete")),
    mapValue("correlation", (f: DirectionsFacts) => f.correlation.state, equals("available")),
  ),
});

/** A's own speech carries a verified model origin (unknown origin proves nothing). */
const speechOrigin = defineContextMatch<DirectionsFacts, MaterialCollection<Utterance>>({
  name: "a-speech-origin",
  read: (ctx) => ({ state: "available", value: ctx.conversation }),
  match: filterWhere(
    speakerMatch("A"),
    mapEach((u: Utterance) => u.modelOrigin, countWhere(equals("unknown"), equals(0))),
  ),
});

/** The meeting linked to the move that caused it. */
interface LinkedMeeting {
  readonly meeting: WorldEvent;
  readonly action: Action;
}

function linkMeeting(ctx: DirectionsFacts): MatchFact<LinkedMeeting> {
  if (ctx.correlation.state === "unavailable") return ctx.correlation;
  if (ctx.events.state === "unavailable") return ctx.events;
  const meeting = ctx.events.items.find(
    (e) => e.kind === "met" && e.actorIds.includes("A") && e.actorIds.includes("B"),
  );
  if (!meeting) {
    return ctx.events.state === "partial"
      ? { state: "unavailable", reason: `no meeting among the events seen; ${ctx.events.reason}` }
      : {
          state: "unavailable",
          reason: "no-meeting: A and B never met, so nothing links to an independent move",
        };
  }
  if (ctx.actions.state === "unavailable") return ctx.actions;
  const action = ctx.actions.items.find((a) => a.id === meeting.causedBy);
  if (!action)
    return {
      state: "unavailable",
      reason: `the move ${meeting.causedBy} behind the meeting is not in the action record`,
    };
  if (action.decisionOrigin === "unknown") {
    return {
      state: "unavailable",
      reason: `decision-origin-unknown: move ${action.id} cannot be attributed to A's model; unknown origin does not prove autonomy`,
    };
  }
  return { state: "available", value: { meeting, action } };
}

const independentMeeting = defineContextMatch<DirectionsFacts, LinkedMeeting>({
  name: "independent-meeting",
  read: linkMeeting,
  match: and(
    mapValue("mover", (l: LinkedMeeting) => l.action.actorId, equals("A")),
    mapValue("decided by", (l: LinkedMeeting) => l.action.decidedBy, equals("model")),
    mapValue("executed", (l: LinkedMeeting) => l.action.executed, equals(true)),
  ),
});

async function observe(options: WorldOptions, ctx: AdapterCreateContext): Promise<DirectionsFacts> {
  const world = await simulate(options, `${ctx.runId}/${ctx.evalId}`, ctx.signal);
  for (const call of world.modelCalls) ctx.reportUsage(call);
  return {
    destination: world.destination,
    conversation: world.conversationCut
      ? { state: "partial", items: world.conversation, reason: world.conversationCut }
      : { state: "complete", items: world.conversation },
    actions: { state: "complete", items: world.actions },
    events: { state: "complete", items: world.events },
    correlation: { state: "available", value: world.attemptId },
  };
}

/**
 * The directions scenario as a score eval (0–10 points): checkpoint 1 is a gate,
 * checkpoint 2 two judged questions (2 + 3), checkpoint 3 a gate worth 5.
 */
export function directionsEval(id: string, description: string, options: WorldOptions = {}) {
  const adapter = defineAdapter({
    name: "directions",
    create: (ctx: AdapterCreateContext) => observe(options, ctx),
    assertions: ({ check }) => ({
      said: (match: BooleanMatch<Utterance, Utterance>) => check(utterances(match)),
      did: (match: BooleanMatch<Action, Action>) => check(actions(match)),
      happened: (match: BooleanMatch<WorldEvent, WorldEvent>) => check(events(match)),
    }),
  });
  return adapter.defineScoreEval({
    id,
    description,
    test(t) {
      t.check(recordsComplete).label("Records complete and correlated");

      // Checkpoint 1: one utterance satisfies actor, recipient, intent and delivery.
      t.said(
        and(
          speakerMatch("A"),
          recipientMatch("B"),
          intentMatch("ask-directions"),
          deliveredMatch(),
        ),
      )
        .gate()
        .label("1. A asked B the way");

      // Checkpoint 2: all of A's formal speech, heard or not, whatever its origin.
      t.closeQA(
        utterances(and(speakerMatch("A"), formalMatch())),
        "Is all of A's formal speech natural, complete, and understandable in context?",
        { maxMaterialBytes: 64 * 1024, maxAuditBytes: 256 * 1024 },
      )
        .score(2)
        .label("2a. Expression");
      t.closeQA(
        informationMaterial,
        "Does the delivered conversation provide enough information to find the destination on the official map?",
        { maxMaterialBytes: 64 * 1024, maxAuditBytes: 256 * 1024 },
      )
        .score(3)
        .label("2b. Information");
      t.check(speechOrigin).label("2c. A's speech has a verified model origin");

      // Checkpoint 3: recorded separately, then linked into the gate that earns 5.
      t.did(and(actorMatch("A"), decidedByMatch("model"), modelOutcomeMatch("succeeded"))).label(
        "3a. A's model chose to move",
      );
      t.did(and(actorMatch("A"), decidedByMatch("model"), executedMatch())).label(
        "3b. The application executed A's move",
      );
      t.happened(meetingMatch("A", "B")).label("3c. A arrived and met B");
      t.check(independentMeeting).gate().score(5).label("3. Independent completion");

      t.check(t.usage.totalTokens, atMost(20_000)).gate().label("Usage limit");
    },
  });
}
