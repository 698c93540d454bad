/**
 * A small simulated world for the directions scenario: A does not know the way, B does.
 * A's "model" is a deterministic policy, so runs are reproducible; the world records what
 * happened the way a real application would (conversation, actions, events).
 */

/** The official map: places joined by roads. */
export const officialMap = {
  name: "harbour-town",
  places: ["square", "market", "bridge", "mill", "lighthouse"],
  roads: [
    ["square", "market"],
    ["market", "bridge"],
    ["square", "mill"],
    ["bridge", "lighthouse"],
  ],
} as const;

export type Place = (typeof officialMap.places)[number];

export interface Utterance {
  readonly id: string;
  readonly speakerId: string;
  readonly recipientId: string;
  readonly intent: "ask-directions" | "give-directions" | "thanks";
  readonly text: string;
  readonly delivered: boolean;
  readonly formal: boolean;
  readonly modelOrigin: "verified" | "unknown";
}

export interface Action {
  readonly id: string;
  readonly actorId: string;
  readonly kind: "move";
  /** Who chose the action: the actor's model, a human player, or a script. */
  readonly decidedBy: "model" | "player" | "script";
  readonly decisionOrigin: "verified" | "unknown";
  readonly modelOutcome: "succeeded" | "failed" | "none";
  readonly executed: boolean;
  readonly from: Place;
  readonly to: Place;
}

export interface WorldEvent {
  readonly id: string;
  readonly kind: "arrived" | "met";
  readonly actorIds: readonly string[];
  readonly place: Place;
  readonly causedBy: string;
}

/** What can go differently in a run. */
export interface WorldOptions {
  /** Whom A asks for the way (default "B"). */
  asks?: "B" | "C";
  /** Who moves A (default: A's model). */
  mover?: "model" | "player";
  /** Provenance of A's speech records (default verified). */
  speechOrigin?: "verified" | "unknown";
  /** Provenance of A's movement decisions (default verified). */
  decisionOrigin?: "verified" | "unknown";
  /** The conversation recorder keeps at most this many utterances. */
  recorderCapacity?: number;
}

/** Everything the world recorded in one run. */
export interface WorldRecords {
  readonly attemptId: string;
  readonly destination: Place;
  readonly conversation: readonly Utterance[];
  readonly conversationCut?: string;
  readonly actions: readonly Action[];
  readonly events: readonly WorldEvent[];
  /** Tokens A's model used, per call. */
  readonly modelCalls: readonly { inputTokens: number; outputTokens: number }[];
}

/** Shortest route over the roads (breadth-first). */
export function route(from: Place, to: Place): Place[] {
  const previous = new Map<Place, Place | null>([[from, null]]);
  const queue: Place[] = [from];
  while (queue.length > 0) {
    const here = queue.shift()!;
    if (here === to) break;
    for (const [a, b] of officialMap.roads) {
      const next = a === here ? b : b === here ? a : undefined;
      if (next && !previous.has(next)) {
        previous.set(next, here);
        queue.push(next);
      }
    }
  }
  const path: Place[] = [];
  for (let at: Place | null | undefined = to; at; at = previous.get(at)) path.unshift(at);
  return path[0] === from ? path : [];
}

/** A's policy: follow the places named in the directions, in the order they were named. */
const placesNamed = (text: string): Place[] =>
  officialMap.places
    .map((place) => ({ place, at: text.toLowerCase().indexOf(place) }))
    .filter((hit) => hit.at >= 0)
    .sort((x, y) => x.at - y.at)
    .map((hit) => hit.place);

const tokens = (text: string) => Math.ceil(text.length / 4);

/** Run the scenario once: A asks, B (or C) answers, B walks ahead, A follows the directions. */
export async function simulate(
  options: WorldOptions,
  attemptId: string,
  signal: AbortSignal,
): Promise<WorldRecords> {
  const destination: Place = "lighthouse";
  const helper = options.asks ?? "B";
  const speechOrigin = options.speechOrigin ?? "verified";
  const modelCalls: { inputTokens: number; outputTokens: number }[] = [];
  const conversation: Utterance[] = [];
  const say = (
    speakerId: string,
    recipientId: string,
    intent: Utterance["intent"],
    text: string,
  ) => {
    conversation.push({
      id: `u${conversation.length + 1}`,
      speakerId,
      recipientId,
      intent,
      text,
      delivered: true,
      formal: true,
      modelOrigin: speakerId === "A" ? speechOrigin : "verified",
    });
    if (speakerId === "A")
      modelCalls.push({ inputTokens: 400 + tokens(text), outputTokens: tokens(text) });
  };

  say("A", helper, "ask-directions", "Excuse me, could you tell me how to get to the lighthouse?");
  const path = route("square", destination);
  const directions = `Of course. From the square walk to the ${path.slice(1, -1).join(", then the ")}, and the road ends at the ${destination}.`;
  say(helper, "A", "give-directions", directions);
  say("A", helper, "thanks", "Thank you, that is very clear.");
  await new Promise((resolve) => setImmediate(resolve));
  if (signal.aborted) throw new Error("the world was stopped before A set off");

  const actions: Action[] = [];
  const events: WorldEvent[] = [];
  let step = 0;
  const move = (actorId: string, from: Place, to: Place, decidedBy: Action["decidedBy"]) => {
    const action: Action = {
      id: `a${++step}`,
      actorId,
      kind: "move",
      decidedBy,
      decisionOrigin: actorId === "A" ? (options.decisionOrigin ?? "verified") : "verified",
      modelOutcome: decidedBy === "model" ? "succeeded" : "none",
      executed: true,
      from,
      to,
    };
    actions.push(action);
    if (decidedBy === "model") modelCalls.push({ inputTokens: 520, outputTokens: 24 });
    return action;
  };
  // B walks ahead along the route it knows.
  for (let i = 1; i < path.length; i++) move("B", path[i - 1]!, path[i]!, "script");
  // A follows the places named in the directions it heard.
  const heard = conversation.find(
    (u) => u.speakerId === helper && u.recipientId === "A" && u.delivered,
  );
  let at: Place = "square";
  let last: Action | undefined;
  for (const next of heard ? placesNamed(heard.text) : []) {
    if (next === at) continue;
    last = move("A", at, next, options.mover ?? "model");
    at = next;
  }
  if (last && at === destination) {
    events.push({ id: "e1", kind: "arrived", actorIds: ["A"], place: at, causedBy: last.id });
    events.push({ id: "e2", kind: "met", actorIds: ["A", "B"], place: at, causedBy: last.id });
  }

  const capacity = options.recorderCapacity ?? Number.POSITIVE_INFINITY;
  const kept = conversation.slice(0, capacity);
  return {
    attemptId,
    destination,
    conversation: kept,
    ...(kept.length < conversation.length
      ? {
          conversationCut: `recorder-capacity: the conversation recorder filled up after ${kept.length} utterances`,
        }
      : {}),
    actions,
    events,
    modelCalls,
  };
}
