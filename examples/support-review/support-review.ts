// The seed's code, verbatim (001): kept exactly as the spec writes it, so it is not reformatted.
// biome-ignore-all format: verbatim seed code
// biome-ignore-all assist/source/organizeImports: verbatim seed code
import { defineAdapter, type AdapterCreateContext } from "niceeval";
import {
  atLeast, atMost, countWhere, defineContextMatch, defineMaterialMatch,
  equals, filterWhere, mapEach, mapValue,
  type BooleanMatch, type CollectionValue, type MaterialCollection, type MatchFact,
  type NumericMaterial,
} from "niceeval/expect";

export type Speech = {
  readonly actorId: string;
  readonly text: string;
  readonly delivered: boolean;
  readonly modelOrigin: "verified" | "unknown";
};
export type Completion =
  | { readonly completed: true; readonly eventId: string; readonly businessSeconds: number }
  | { readonly completed: false; readonly observationEndId: string };
export type SupportFacts = {
  readonly speeches: MaterialCollection<Speech>;
  readonly completion: MatchFact<Completion>;
};

export const actorMatch = (actorId: string) =>
  mapValue("actorMatch", (speech: Speech) => speech.actorId, equals(actorId));

export const speechMaterial = (match: BooleanMatch<Speech, Speech>) =>
  defineMaterialMatch<SupportFacts, Speech>({
    name: "actor-speeches",
    read: ctx => ctx.speeches,
    match,
    capture: { maxItems: 1024, maxBytes: 512 * 1024,
      maxNodes: 65536, maxDepth: 32 },
  });

export function createSupportReview(
  observe: (ctx: AdapterCreateContext) => Promise<SupportFacts>,
) {
  const adapter = defineAdapter({
    name: "support-review",
    create: observe,
    assertions({ check }) {
      return {
        said(match: BooleanMatch<Speech, Speech>) {
          return check(speechMaterial(match));
        },
        speechDelivery(
          selector: BooleanMatch<Speech, Speech>,
          aggregate: BooleanMatch<CollectionValue<boolean>, CollectionValue<boolean>>,
        ) {
          return check(defineContextMatch<SupportFacts, MaterialCollection<Speech>>({
            name: "speech-delivery",
            read: ctx => ({ state: "available", value: ctx.speeches }),
            match: filterWhere(selector, mapEach(
              (speech: Speech) => speech.delivered, aggregate,
            )),
          }));
        },
      };
    },
  });
  const evaluation = adapter.defineScoreEval({
    description: "Support speech quality and task completion efficiency",
    test(t) {
      // Participation earns points; at least one delivery is a separate business gate.
      t.said(actorMatch("agent")).score(5).label("Participation");
      t.speechDelivery(actorMatch("agent"), countWhere(equals(true), atLeast(1)))
        .gate().label("At least one delivery");

      // Assess all speech; do not filter by delivery or model origin.
      t.closeQA(speechMaterial(actorMatch("agent")), "Is every utterance natural, complete, and clear?", {
        maxMaterialBytes: 256 * 1024,
        maxAuditBytes: 1024 * 1024,
      }).score(45).label("Expression quality");

      // Keep the formula visible; unknown retains its weight and is not a zero for non-completion.
      const completion = t.completion;
      const ratio: number | NumericMaterial = completion.state === "unavailable"
        ? { state: "unavailable", reason: completion.reason }
        : completion.value.completed
          ? Math.max(0, 1 - completion.value.businessSeconds / 180)
          : 0;
      t.score(ratio, { weight: 50 }).label("Completion duration");

      const usage = t.usage;
      t.check(usage.totalTokens, atMost(10_000)).gate().label("Usage limit");
      t.check(t.elapsedMs, atMost(30_000)).gate().label("Runtime limit");
    },
  });
  return { adapter, evaluation };
}
