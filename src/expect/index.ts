/** niceeval/expect: evidence types and composable matches for score evals. */

export { type CaptureBudget, type CaptureLimits, defaultCapture, maxCapture } from "./capture.js";
export { countWhere, filterWhere, inOrder, mapEach } from "./collection.js";
export { atLeast, atMost, equals, greaterThan, lessThan } from "./compare.js";
export {
  type ContextCheck,
  type ContextMatch,
  type ContextMatchDefinition,
  defineContextMatch,
  defineMaterialMatch,
  type MaterialMatch,
  type MaterialMatchDefinition,
  type MaterialSelection,
} from "./context-match.js";
export { type AllInputs, type AllNarrowed, and, not, or } from "./logic.js";
export type {
  AnyMatch,
  BooleanMatch,
  CollectionValue,
  MatchFact,
  MatchInput,
  MatchNarrowed,
  MatchResult,
  MatchState,
  MaterialCollection,
  NumericMaterial,
} from "./types.js";
export { includes, isDefined, mapValue, matches, pattern } from "./values.js";
