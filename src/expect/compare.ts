import { show } from "../scorers/deterministic/preview.js";
import { deepEqual } from "./deep-equal.js";
import { mismatchReason } from "./mismatch.js";
import {
  describe,
  finiteArgument,
  formatBeside,
  isNonFinite,
  node,
  nonFiniteNode,
  preview,
  wrongTypeNode,
} from "./result.js";
import type { BooleanMatch, MatchState } from "./types.js";

/**
 * Matches a value structurally equal to `expected` (primitives by value, plain data deeply).
 * A NaN or ±Infinity candidate is unavailable; a NaN or infinite `expected` throws.
 * @example
 * t.check(t.status, equals("resolved")).gate();
 */
export function equals<T>(expected: T): BooleanMatch<Widen<T>, T> {
  if (typeof expected === "number") finiteArgument("equals", "expected", expected);
  // A number in full, as the comparators write their threshold: it is the author's own constant.
  const expects = `equals ${typeof expected === "number" ? String(expected) : describe(expected)}`;
  const primitive = typeof expected !== "object" || expected === null;
  const match: BooleanMatch<Widen<T>, T> = {
    kind: "match",
    name: "equals",
    expects,
    params: { expected },
    test: (value) =>
      isNonFinite(value)
        ? "unavailable"
        : (primitive ? value === expected : deepEqual(value, expected))
          ? "matched"
          : "mismatched",
    evaluate(value) {
      if (isNonFinite(value)) return nonFiniteNode("equals", expects, value);
      const same = primitive ? value === expected : deepEqual(value, expected);
      return node(
        same ? "matched" : "mismatched",
        "equals",
        expects,
        same ? `observed ${describe(value)}` : mismatchReason(value, expected),
        typeof value === "object" && value !== null ? show(value) : preview(value),
      );
    },
  };
  if (typeof expected === "number") {
    return {
      ...match,
      decideRange: (low, high) =>
        low === expected && high === expected
          ? "matched"
          : expected < low || expected > high
            ? "mismatched"
            : "unavailable",
    };
  }
  return match;
}

/**
 * What `equals(expected)` accepts: a literal's primitive type (equals("met") accepts any string
 * and narrows to "met"), and arrays and plain objects as readonly, all the way down, so a fact
 * typed `readonly string[]` (as facts usually are) is checked against `equals(["a", "b"])` or an
 * `as const` value.
 */
export type Widen<T> = T extends string
  ? string
  : T extends number
    ? number
    : T extends boolean
      ? boolean
      : T extends bigint
        ? bigint
        : T extends readonly (infer Item)[]
          ? readonly Widen<Item>[]
          : T extends (...args: never[]) => unknown
            ? T
            : T extends object
              ? { readonly [K in keyof T]: Widen<T[K]> }
              : T;

type Comparator = {
  name: string;
  words: string;
  test: (value: number, threshold: number) => boolean;
  /** Decided over [low, high]: matched when the whole range passes, mismatched when none does. */
  range: (low: number, high: number, threshold: number) => MatchState;
};

function comparator(spec: Comparator, threshold: number): BooleanMatch<number, number> {
  finiteArgument(spec.name, "threshold", threshold);
  const expects = `${spec.words} ${threshold}`;
  return {
    kind: "match",
    name: spec.name,
    expects,
    params: { threshold },
    test: (value) =>
      typeof value !== "number"
        ? "unavailable"
        : !Number.isFinite(value)
          ? "unavailable"
          : spec.test(value, threshold)
            ? "matched"
            : "mismatched",
    evaluate(value) {
      if (typeof value !== "number") return wrongTypeNode(spec.name, expects, value, "a number");
      if (!Number.isFinite(value)) return nonFiniteNode(spec.name, expects, value);
      const passed = spec.test(value, threshold);
      return node(
        passed ? "matched" : "mismatched",
        spec.name,
        expects,
        `observed ${formatBeside(value, threshold)}, ${passed ? "" : "not "}${expects}`,
        value,
      );
    },
    decideRange: (low, high) => spec.range(low, high, threshold),
  };
}

const decided = (all: boolean, none: boolean): MatchState =>
  all ? "matched" : none ? "mismatched" : "unavailable";

/** Matches a finite number strictly greater than `threshold`. */
export const greaterThan = (threshold: number): BooleanMatch<number, number> =>
  comparator(
    {
      name: "greaterThan",
      words: "greater than",
      test: (v, n) => v > n,
      range: (lo, hi, n) => decided(lo > n, hi <= n),
    },
    threshold,
  );

/** Matches a finite number strictly less than `threshold`. */
export const lessThan = (threshold: number): BooleanMatch<number, number> =>
  comparator(
    {
      name: "lessThan",
      words: "less than",
      test: (v, n) => v < n,
      range: (lo, hi, n) => decided(hi < n, lo >= n),
    },
    threshold,
  );

/** Matches a finite number greater than or equal to `threshold`. */
export const atLeast = (threshold: number): BooleanMatch<number, number> =>
  comparator(
    {
      name: "atLeast",
      words: "at least",
      test: (v, n) => v >= n,
      range: (lo, hi, n) => decided(lo >= n, hi < n),
    },
    threshold,
  );

/**
 * Matches a finite number less than or equal to `threshold`.
 * @example
 * t.check(t.usage.totalTokens, atMost(10_000)).gate().label("Usage limit");
 */
export const atMost = (threshold: number): BooleanMatch<number, number> =>
  comparator(
    {
      name: "atMost",
      words: "at most",
      test: (v, n) => v <= n,
      range: (lo, hi, n) => decided(hi <= n, lo > n),
    },
    threshold,
  );
