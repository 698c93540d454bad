import { AuthoringError } from "../errors.js";
import { node, stateOf, wrongTypeIn, wrongTypeWithin } from "./result.js";
import type { AnyMatch, BooleanMatch, MatchNarrowed, MatchResult, MatchState } from "./types.js";

type Intersect<U> = (U extends unknown ? (value: U) => void : never) extends (
  value: infer I,
) => void
  ? I
  : never;

// Boxed so that an operand whose input is itself a union is not split by the intersection.
type BoxInput<M> = M extends BooleanMatch<infer I, unknown> ? { readonly box: I } : never;
type Unbox<B> = B extends { readonly box: unknown } ? B["box"] : never;
type BoxNarrowed<M> = M extends BooleanMatch<never, infer N> ? { readonly box: N } : never;

/** Input of `and`/`or` over several matches: a value every operand accepts. */
export type AllInputs<M extends readonly AnyMatch[]> = Unbox<Intersect<BoxInput<M[number]>>>;
/** Narrowed type of `and`: what every operand narrows to. */
export type AllNarrowed<M extends readonly AnyMatch[]> = Unbox<Intersect<BoxNarrowed<M[number]>>>;

type Operands = readonly [AnyMatch, ...AnyMatch[]];

/** Three-valued conjunction: any mismatch decides, else any unavailable leaves it open. */
export function andState(states: readonly MatchState[]): MatchState {
  let open = false;
  for (const state of states) {
    if (state === "mismatched") return "mismatched";
    if (state === "unavailable") open = true;
  }
  return open ? "unavailable" : "matched";
}

/** Three-valued disjunction: any match decides, else any unavailable leaves it open. */
export function orState(states: readonly MatchState[]): MatchState {
  let open = false;
  for (const state of states) {
    if (state === "matched") return "matched";
    if (state === "unavailable") open = true;
  }
  return open ? "unavailable" : "mismatched";
}

/** Negation: swaps matched and mismatched; unavailable stays unavailable. */
export const notState = (state: MatchState): MatchState =>
  state === "matched" ? "mismatched" : state === "mismatched" ? "matched" : "unavailable";

/** The wrongType node of `and`/`or` for its first argument a value of the wrong type left unjudged. */
function wrongArgument(
  name: "and" | "or",
  expects: string,
  results: readonly MatchResult[],
): MatchResult | undefined {
  for (const [index, result] of results.entries()) {
    const wrong = wrongTypeWithin(name, expects, `argument ${index + 1}`, result, results);
    if (wrong) return wrong;
  }
  return undefined;
}

/** Mismatched arguments whose reasons an `and` or `or` quotes; the rest are counted. */
const TOLD_MISMATCHES = 3;

/** The node of `and`/`or` in `state`: how many arguments are in it, and the one that decided. */
function combined(
  name: "and" | "or",
  expects: string,
  results: readonly MatchResult[],
  state: MatchState,
): MatchResult {
  const inState = results.filter((r) => r.state === state);
  const counts = `${inState.length} of ${results.length} ${state}`;
  // What each argument found, where it explains the state: every mismatch of a failed `and` or
  // `or` (an `or` fails only when all do), the first of what decided otherwise; none for an
  // `and` that matched.
  const told =
    name === "and" && state === "matched"
      ? []
      : state === "mismatched"
        ? inState.slice(0, TOLD_MISMATCHES)
        : inState.slice(0, 1);
  const more =
    state === "mismatched" && inState.length > told.length
      ? `; and ${inState.length - told.length} more`
      : "";
  // An `and` that matched (the common case, once per check) says its count alone.
  const reason =
    told.length === 0
      ? counts
      : [counts, ...told.map((r) => `${r.name}: ${r.reason}`)].join("; ") + more;
  return node(state, name, expects, reason, undefined, results);
}

function combine(
  name: "and" | "or",
  matches: Operands,
  decide: (states: readonly MatchState[]) => MatchState,
): BooleanMatch<never, unknown> {
  if (matches.length === 0) {
    throw new AuthoringError(`${name}(): needs at least one match; pass the matches to combine`);
  }
  matches.forEach((match, index) => {
    if (match?.kind !== "match") {
      throw new AuthoringError(
        `${name}(): argument ${index + 1} is not a match; pass matches built with niceeval/expect`,
      );
    }
  });
  const joiner = name === "and" ? " and " : " or ";
  const expects = matches.map((m) => `(${m.expects})`).join(joiner);
  const ranged = matches.every((m) => m.decideRange !== undefined);
  const match: BooleanMatch<never, unknown> = {
    kind: "match",
    name,
    expects,
    children: matches,
    // Every argument is tried, none skipped once one decides: a later one may hold a wrong type.
    test(value) {
      const states = matches.map((m) => stateOf(m, value));
      const wrong = states.some(
        (state, index) =>
          state === "unavailable" && wrongTypeIn(matches[index]!.evaluate(value)) !== undefined,
      );
      return wrong ? "unavailable" : decide(states);
    },
    evaluate(value) {
      const results: MatchResult[] = matches.map((m) => m.evaluate(value));
      const state = decide(results.map((r) => r.state));
      return wrongArgument(name, expects, results) ?? combined(name, expects, results, state);
    },
  };
  if (!ranged) return match;
  return {
    ...match,
    decideRange: (low, high) => decide(matches.map((m) => m.decideRange!(low, high))),
  };
}

/**
 * Matches when every operand matches on the same value. Mismatched as soon as one mismatches;
 * unavailable when none mismatches but some cannot be decided.
 * @example
 * and(actorMatch("A"), recipientMatch("B"), deliveredMatch())
 */
export function and<const M extends Operands>(
  ...matches: M
): BooleanMatch<AllInputs<M>, AllNarrowed<M>> {
  return combine("and", matches, andState) as BooleanMatch<AllInputs<M>, AllNarrowed<M>>;
}

/**
 * Matches when any operand matches. Mismatched only when every operand mismatches.
 * @example
 * or(equals("resolved"), equals("escalated"))
 */
export function or<const M extends Operands>(
  ...matches: M
): BooleanMatch<AllInputs<M>, MatchNarrowed<M[number]>> {
  return combine("or", matches, orState) as BooleanMatch<AllInputs<M>, MatchNarrowed<M[number]>>;
}

/**
 * Matches when `match` mismatches; unavailable stays unavailable (missing evidence never
 * becomes a pass).
 * @example
 * not(includes("as an AI language model"))
 */
export function not<I>(match: BooleanMatch<I, unknown>): BooleanMatch<I, I> {
  if (match?.kind !== "match") {
    throw new AuthoringError(
      "not(): the argument is not a match; pass a match built with niceeval/expect",
    );
  }
  const expects = `not (${match.expects})`;
  const negated: BooleanMatch<I, I> = {
    kind: "match",
    name: "not",
    expects,
    children: [match as AnyMatch],
    test: (value) => notState(stateOf(match, value)),
    evaluate(value) {
      const inner = match.evaluate(value);
      const state = notState(inner.state);
      return node(
        state,
        "not",
        expects,
        `${match.name} was ${inner.state}: ${inner.reason}`,
        undefined,
        [inner],
      );
    },
  };
  const range = match.decideRange;
  return range ? { ...negated, decideRange: (low, high) => notState(range(low, high)) } : negated;
}
