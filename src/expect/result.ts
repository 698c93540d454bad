import { AuthoringError } from "../errors.js";
import { plural } from "../plural.js";
import { show } from "../scorers/deterministic/preview.js";
import { shownApart } from "../shown-apart.js";
import type { BooleanMatch, MatchResult, MatchState } from "./types.js";

const maxPreviewChars = 120;

/** A constant-time preview of a value for result trees (never copies large values). */
export function preview(value: unknown): unknown {
  switch (typeof value) {
    case "string":
      return value.length > maxPreviewChars ? `${value.slice(0, maxPreviewChars)}…` : value;
    case "number":
      return Number.isFinite(value) ? value : String(value);
    case "boolean":
      return value;
    case "undefined":
      return "undefined";
    case "bigint":
      return `${value}n`;
    case "function":
      return "function";
    case "symbol":
      return String(value);
    default:
      if (value === null) return null;
      if (Array.isArray(value)) return `array(${value.length})`;
      return "object";
  }
}

/** A number for a reason: integers as they are, others to 6 significant digits. */
export const formatNumber = (value: number): string =>
  Number.isInteger(value) || !Number.isFinite(value)
    ? String(value)
    : String(Number(value.toPrecision(6)));

/**
 * A number for a reason beside `other`, the number it was compared with: as {@link formatNumber}
 * writes it, with more significant digits where 6 would read as equal to `other` or on its other
 * side ("observed 0.4999999, not at least 0.5", never "observed 0.5, not at least 0.5").
 */
export const formatBeside = (value: number, other: number): string =>
  Number.isInteger(value) || !Number.isFinite(value)
    ? String(value)
    : shownApart(value, other, (v, digits) => String(Number(v.toPrecision(digits))), 6, 17);

/** Short text for a value inside a reason or an `expects` string. */
export function describe(value: unknown): string {
  if (typeof value === "number") return formatNumber(value);
  const shown = preview(value);
  return typeof shown === "string" && typeof value === "string"
    ? JSON.stringify(shown)
    : String(shown);
}

/** What kind of object a value is, for a reason (`a plain object`, `an instance of Money`). */
export function kindOf(value: unknown): string {
  if (Array.isArray(value)) return `an array of ${plural(value.length, "item")}`;
  if (value instanceof Date) return "a Date";
  if (value instanceof Map) return "a Map";
  if (value instanceof Set) return "a Set";
  const prototype = Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null;
  if (prototype === null) return "an object without prototype";
  if (prototype === Object.prototype) return "a plain object";
  const name = prototype.constructor?.name;
  return typeof name === "string" && name !== "" ? `an instance of ${name}` : "an object";
}

/**
 * An object for a reason: its kind, its size, and what it holds as far as a preview goes
 * (`a plain object {"items":[1]}`, `a Set of 2 items [1,2]`), never just "object".
 */
function describeObject(value: object): string {
  let kind = kindOf(value);
  if (value instanceof Map)
    kind = `a Map of ${value.size} ${value.size === 1 ? "entry" : "entries"}`;
  else if (value instanceof Set) kind = `a Set of ${plural(value.size, "item")}`;
  return `${kind} ${show(value)}`;
}

/** A value a matcher cannot take, for its reason: an object with its kind and what it holds. */
export const describeObserved = (value: unknown): string =>
  typeof value === "object" && value !== null ? describeObject(value) : describe(value);

/** Build a result node (omits absent optional fields, as exactOptionalPropertyTypes wants). */
export function node(
  state: MatchState,
  name: string,
  expected: string,
  reason: string,
  observed?: unknown,
  children?: readonly MatchResult[],
): MatchResult {
  const result: { -readonly [K in keyof MatchResult]: MatchResult[K] } = {
    state,
    name,
    expected,
    reason,
  };
  if (observed !== undefined) result.observed = observed;
  if (children !== undefined && children.length > 0) result.children = children;
  return result;
}

/** Reject a non-finite threshold when the matcher is built. */
export function finiteArgument(matcher: string, argument: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new AuthoringError(
      `${matcher}(${argument}): expected a finite number, got ${describe(value)}; pass a finite threshold`,
    );
  }
  return value;
}

/** Whether `value` is a number niceeval cannot compare (NaN or ±Infinity). */
export const isNonFinite = (value: unknown): value is number =>
  typeof value === "number" && !Number.isFinite(value);

/** The unavailable node for a NaN/±Infinity candidate. */
export const nonFiniteNode = (name: string, expected: string, value: number): MatchResult =>
  node(
    "unavailable",
    name,
    expected,
    `observed ${String(value)}, which is not a finite number and cannot be compared`,
    String(value),
  );

/**
 * The node of a value `name` cannot judge because it is not of the type it `takes` (undefined, or
 * a string for a numeric matcher): unavailable, marked `wrongType`, so that neither `not` nor a
 * count turns it into a verdict on the application and a check makes it an errored judgment.
 * @example
 * wrongTypeNode("atMost", "at most 500", undefined, "a number").reason;
 * // "observed undefined, but atMost takes a number"
 */
export function wrongTypeNode(
  name: string,
  expected: string,
  value: unknown,
  takes: string,
): MatchResult {
  const reason = `observed ${describeObserved(value)}, but ${name} takes ${takes}`;
  return { ...node("unavailable", name, expected, reason, preview(value)), wrongType: true };
}

/** The first node of `result` left unavailable by a matcher given a value of the wrong type. */
export function wrongTypeIn(result: MatchResult): MatchResult | undefined {
  const pending = [result];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next.state !== "unavailable") continue;
    if (next.wrongType) return next;
    if (next.children)
      for (let i = next.children.length - 1; i >= 0; i--) pending.push(next.children[i]!);
  }
  return undefined;
}

/**
 * The node of the combinator `name` when an inner result it combined, read at `where` (`item 2`,
 * `argument 1`), holds a node left unavailable by a value of the wrong type, else undefined:
 * unavailable and marked `wrongType` too, its reason naming where, so that no count, `and`, `or`
 * or order turns the authoring error into a verdict. `children` default to that inner result.
 * @example
 * wrongTypeWithin("and", "(at most 3) and (includes \"z\")", "argument 1", atMost(3).evaluate("abc"))?.reason;
 * // 'and argument 1: observed "abc", but atMost takes a number'
 */
export function wrongTypeWithin(
  name: string,
  expected: string,
  where: string,
  inner: MatchResult,
  children: readonly MatchResult[] = [inner],
): MatchResult | undefined {
  const wrong = wrongTypeIn(inner);
  if (wrong === undefined) return undefined;
  const reason = `${name} ${where}: ${wrong.reason}`;
  return { ...node("unavailable", name, expected, reason, undefined, children), wrongType: true };
}

/** The state of `match` on `value`, through its fast path when it has one. */
export const stateOf = <I>(match: BooleanMatch<I, unknown>, value: I): MatchState =>
  match.test ? match.test(value) : match.evaluate(value).state;
