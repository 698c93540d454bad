/**
 * Evidence and match values. Evidence is plain data that says whether it was observed;
 * a match is a plain value (kind, name, expects) whose `evaluate` returns a result tree.
 */

/** A single observed fact, or why it could not be observed. */
export type MatchFact<T> =
  | { readonly state: "available"; readonly value: T }
  | { readonly state: "unavailable"; readonly reason: string };

/** A number that may be missing (token counts, latency, cost). */
export type NumericMaterial = MatchFact<number>;

/**
 * An observed collection: every item (`complete`), only some of them (`partial`, with why),
 * or none (`unavailable`).
 */
export type MaterialCollection<T> =
  | { readonly state: "complete"; readonly items: readonly T[] }
  | { readonly state: "partial"; readonly items: readonly T[]; readonly reason: string }
  | { readonly state: "unavailable"; readonly reason: string };

/** What collection matches accept: a plain array (complete) or a material collection. */
export type CollectionValue<T> = readonly T[] | MaterialCollection<T>;

/** Outcome of one match node. `unavailable` means the evidence cannot decide it. */
export type MatchState = "matched" | "mismatched" | "unavailable";

/** One node of a match result tree. */
export interface MatchResult {
  readonly state: MatchState;
  /** The matcher's name, e.g. "countWhere" or "actorMatch". */
  readonly name: string;
  /** What the matcher expects, in words. */
  readonly expected: string;
  /** A bounded preview of what was observed. */
  readonly observed?: unknown;
  readonly reason: string;
  readonly children?: readonly MatchResult[] | undefined;
  /**
   * Set on an unavailable node whose matcher cannot judge the value because it is not of the type
   * it takes (undefined, or a string for a numeric matcher): a check makes that an errored
   * judgment, an authoring or adapter problem, never a mismatch that blames the application.
   * Set too on the node of a combinator (a count, `and`, `or`, `inOrder`…) an inner result of
   * which is such a node, its reason naming where (`countWhere item 2: …`).
   */
  readonly wrongType?: true | undefined;
}

/**
 * A boolean match over `Input`. `Narrowed` is the type a matched value is known to have
 * (used by `and` to intersect). Matches are synchronous: evidence is captured before matching.
 */
export interface BooleanMatch<in Input, out Narrowed = Input> {
  readonly kind: "match";
  /** Stable name of the matcher, e.g. "equals". */
  readonly name: string;
  /** What it expects, in words, e.g. "at least 1". */
  readonly expects: string;
  /** Sub-matches, for inspection. */
  readonly children?: readonly AnyMatch[] | undefined;
  /** Parameters, for inspection (threshold, expected value…). */
  readonly params?: Readonly<Record<string, unknown>> | undefined;
  /** Decide the match on one value. */
  readonly evaluate: (value: Input) => MatchResult;
  /** The state `evaluate` would return, without building the tree (used in loops over items). */
  readonly test?: ((value: Input) => MatchState) | undefined;
  /**
   * Decide the match for every number in [low, high] at once, when the matcher can
   * (numeric comparators); used to settle counts over partial collections.
   */
  readonly decideRange?: ((low: number, high: number) => MatchState) | undefined;
  /** Phantom: the narrowed type (never set at run time). */
  readonly "~narrowed"?: Narrowed;
}

/** Any match, whatever its input (input is contravariant, so `never` accepts all). */
export type AnyMatch = BooleanMatch<never, unknown>;

/** The input type of a match. */
export type MatchInput<M> = M extends BooleanMatch<infer I, unknown> ? I : never;
/** The narrowed type of a match. */
export type MatchNarrowed<M> = M extends BooleanMatch<never, infer N> ? N : never;
