import { AuthoringError } from "../errors.js";
import { equals } from "./compare.js";
import { describe, node, preview, stateOf, wrongTypeNode, wrongTypeWithin } from "./result.js";
import type {
  AnyMatch,
  BooleanMatch,
  CollectionValue,
  MatchResult,
  MatchState,
  MaterialCollection,
} from "./types.js";

/** A collection value read as material, or why it is not one. */
export type ReadCollection<T> =
  | MaterialCollection<T>
  | { readonly state: "invalid"; readonly value: unknown };

/** Normalise a plain array or a material collection. */
export function readCollection<T>(value: CollectionValue<T> | unknown): ReadCollection<T> {
  if (Array.isArray(value)) return { state: "complete", items: value as readonly T[] };
  if (typeof value === "object" && value !== null) {
    const state = (value as { state?: unknown }).state;
    const items = (value as { items?: unknown }).items;
    if ((state === "complete" || state === "partial") && Array.isArray(items)) {
      return value as MaterialCollection<T>;
    }
    if (state === "unavailable") return value as MaterialCollection<T>;
  }
  return { state: "invalid", value };
}

/** The node of a value that is not a collection, for the collection matcher `name`. */
export const notACollection = (name: string, expects: string, value: unknown): MatchResult =>
  wrongTypeNode(name, expects, value, "an array or a material collection");

/** The matcher that scans a collection, as a node of the wrong type names it. */
export interface Scanner {
  readonly name: string;
  readonly expects: string;
}

/** What {@link scan} found among the items it could not match. */
export interface Scanned {
  /** How many items were unavailable for the match. */
  readonly unknown: number;
  /** The first such item's full result, as a sample. */
  readonly firstUnknown: MatchResult | undefined;
  /** The scanner's wrongType node for the first item of the wrong type (the scan stopped there). */
  readonly wrong?: MatchResult | undefined;
}

/**
 * Match every item, calling `onMatched` for the matched ones. An unavailable item is evaluated
 * to tell a value of the wrong type (the scan stops: `wrong`, naming the item) from missing
 * evidence (counted, the first one's result kept as a sample); the other items build no tree.
 */
export function scan<T>(
  match: BooleanMatch<T, unknown>,
  items: readonly T[],
  onMatched: (item: T) => void,
  scanner: Scanner,
): Scanned {
  let unknown = 0;
  let firstUnknown: MatchResult | undefined;
  for (const [index, item] of items.entries()) {
    const state = stateOf(match, item);
    if (state === "matched") onMatched(item);
    else if (state === "unavailable") {
      const result = match.evaluate(item);
      const wrong = wrongTypeWithin(scanner.name, scanner.expects, `item ${index}`, result);
      if (wrong) return { unknown, firstUnknown, wrong };
      unknown++;
      firstUnknown ??= result;
    }
  }
  return { unknown, firstUnknown };
}

/** The node for a value that is not a usable collection (unavailable or invalid). */
function notReadable(name: string, expects: string, read: ReadCollection<unknown>): MatchResult {
  if (read.state === "unavailable")
    return node("unavailable", name, expects, read.reason, "unavailable");
  return notACollection(name, expects, (read as { value: unknown }).value);
}

const completeness = (read: MaterialCollection<unknown>) =>
  read.state === "partial" ? `partial (${read.reason})` : read.state;

function requireMatch(matcher: string, argument: string, value: unknown): void {
  if ((value as AnyMatch | undefined)?.kind !== "match") {
    throw new AuthoringError(
      `${matcher}(${argument}): expected a match built with niceeval/expect, got ${describe(value)}`,
    );
  }
}

/** A count match: a non-negative integer (exact count) or a numeric match that some count can satisfy. */
function countMatch(count: number | BooleanMatch<number, unknown>): BooleanMatch<number, unknown> {
  if (typeof count === "number") {
    if (!Number.isInteger(count) || count < 0) {
      throw new AuthoringError(
        `countWhere(item, count): count ${String(count)} is not a non-negative integer; pass a whole number >= 0 or a match such as atLeast(1)`,
      );
    }
    return equals(count);
  }
  requireMatch("countWhere", "count", count);
  if (count.decideRange?.(0, Number.POSITIVE_INFINITY) === "mismatched") {
    throw new AuthoringError(
      `countWhere(item, count): "${count.expects}" can never hold for a count (counts are >= 0); fix the threshold`,
    );
  }
  // A count is a whole number >= 0: a negative bound, or an exact fractional one, is a typo.
  const params = (count as { params?: { expected?: unknown; threshold?: unknown } }).params;
  const bound = params?.expected ?? params?.threshold;
  if (
    typeof bound === "number" &&
    (bound < 0 || (count.name === "equals" && !Number.isInteger(bound)))
  ) {
    throw new AuthoringError(
      `countWhere(item, count): "${count.expects}" uses ${bound}, which is not a count; counts are whole numbers >= 0`,
    );
  }
  return count;
}

/**
 * Counts the items that match `item` and matches the count against `count`. Over a partial
 * collection (or items whose match is unavailable) the count is only known as a range; the
 * result is decided when every count in that range gives the same answer, else unavailable.
 * @example
 * countWhere(equals(true), atLeast(1)) // at least one delivered
 */
export function countWhere<T>(
  item: BooleanMatch<T, unknown>,
  count: BooleanMatch<number, unknown> | number,
): BooleanMatch<CollectionValue<T>, CollectionValue<T>> {
  requireMatch("countWhere", "item", item);
  const counted = countMatch(count);
  const expects = `count of items where ${item.expects} is ${counted.expects}`;
  return {
    kind: "match",
    name: "countWhere",
    expects,
    children: [item as AnyMatch, counted as AnyMatch],
    evaluate(value) {
      const read = readCollection<T>(value);
      if (read.state === "unavailable" || read.state === "invalid")
        return notReadable("countWhere", expects, read);
      let matched = 0;
      const { unknown, firstUnknown, wrong } = scan(
        item,
        read.items,
        () => {
          matched++;
        },
        { name: "countWhere", expects },
      );
      if (wrong) return wrong;
      const high = read.state === "partial" ? Number.POSITIVE_INFINITY : matched + unknown;
      const observed = { matched, unknown, seen: read.items.length, collection: read.state };
      const samples = firstUnknown ? [firstUnknown] : [];
      if (high === matched) {
        const counting = counted.evaluate(matched);
        return node(
          counting.state,
          "countWhere",
          expects,
          `${matched} of ${read.items.length} items matched ${item.expects}; count ${counting.state === "matched" ? "is" : "is not"} ${counted.expects}`,
          observed,
          [counting],
        );
      }
      const state: MatchState = counted.decideRange
        ? counted.decideRange(matched, high)
        : "unavailable";
      const range = `between ${matched} and ${high === Number.POSITIVE_INFINITY ? "unknown" : high}`;
      const why =
        read.state === "partial"
          ? `collection is ${completeness(read)}`
          : `${unknown} items could not be matched`;
      return node(
        state,
        "countWhere",
        expects,
        state === "unavailable"
          ? `count is ${range} (${why}), which cannot decide ${counted.expects}`
          : `count is ${range} (${why}); every such count ${state === "matched" ? "is" : "is not"} ${counted.expects}`,
        observed,
        samples,
      );
    },
  };
}

/**
 * Keeps the items that match `selector` and matches the selection with `then`. Items whose
 * selection is unavailable make the selection partial.
 * @example
 * filterWhere(actorMatch("agent"), countWhere(isDefined(), atLeast(1)))
 */
export function filterWhere<T>(
  selector: BooleanMatch<T, unknown>,
  then: BooleanMatch<CollectionValue<T>, unknown>,
): BooleanMatch<CollectionValue<T>, CollectionValue<T>> {
  requireMatch("filterWhere", "selector", selector);
  requireMatch("filterWhere", "then", then);
  const expects = `items where ${selector.expects}: ${then.expects}`;
  return {
    kind: "match",
    name: "filterWhere",
    expects,
    children: [selector as AnyMatch, then as AnyMatch],
    evaluate(value) {
      const read = readCollection<T>(value);
      if (read.state === "unavailable" || read.state === "invalid")
        return notReadable("filterWhere", expects, read);
      const selected: T[] = [];
      const { unknown, firstUnknown, wrong } = scan(
        selector,
        read.items,
        (entry) => selected.push(entry),
        { name: "filterWhere", expects },
      );
      if (wrong) return wrong;
      const selection: MaterialCollection<T> =
        read.state === "partial"
          ? { state: "partial", items: selected, reason: read.reason }
          : unknown > 0
            ? {
                state: "partial",
                items: selected,
                reason: `${unknown} items could not be selected: ${firstUnknown?.reason ?? "unavailable"}`,
              }
            : { state: "complete", items: selected };
      const inner = then.evaluate(selection);
      // Its items are numbered within the selection: said so, not taken for the collection's.
      const within = `then (over the ${selected.length} selected items)`;
      const wrongThen = wrongTypeWithin("filterWhere", expects, within, inner);
      if (wrongThen) return wrongThen;
      return node(
        inner.state,
        "filterWhere",
        expects,
        `selected ${selected.length} of ${read.items.length} items (${completeness(selection)}); ${inner.reason}`,
        { selected: selected.length, seen: read.items.length, collection: selection.state },
        firstUnknown ? [inner, firstUnknown] : [inner],
      );
    },
  };
}

/**
 * Maps every item with `map` and matches the mapped collection with `then`; completeness
 * is kept (a partial collection stays partial).
 * @example
 * mapEach((speech: Speech) => speech.delivered, countWhere(equals(true), atLeast(1)))
 */
export function mapEach<T, U>(
  map: (item: T) => U,
  then: BooleanMatch<CollectionValue<NoInfer<U>>, unknown>,
): BooleanMatch<CollectionValue<T>, CollectionValue<T>> {
  if (typeof map !== "function") {
    throw new AuthoringError(`mapEach(map, then): map must be a function, got ${describe(map)}`);
  }
  requireMatch("mapEach", "then", then);
  const expects = `each item mapped${map.name ? ` by ${map.name}` : ""}: ${then.expects}`;
  return {
    kind: "match",
    name: "mapEach",
    expects,
    children: [then as AnyMatch],
    evaluate(value) {
      const read = readCollection<T>(value);
      if (read.state === "unavailable" || read.state === "invalid")
        return notReadable("mapEach", expects, read);
      const items = read.items.map((entry) => map(entry));
      const mapped: MaterialCollection<U> =
        read.state === "partial"
          ? { state: "partial", items, reason: read.reason }
          : { state: "complete", items };
      const inner = then.evaluate(mapped);
      // Same state, items numbered as in the collection: a wrong type in `then` stays its own.
      return node(
        inner.state,
        "mapEach",
        expects,
        inner.reason,
        { seen: items.length, collection: read.state },
        [inner],
      );
    },
  };
}

/**
 * Matches when items matching each step appear in this order (a subsequence: other items may
 * sit between them, each step uses a later item than the one before).
 * @example
 * inOrder(actorMatch("A"), actorMatch("B")) // A spoke, then later B
 */
export function inOrder<T>(
  ...steps: readonly [BooleanMatch<T, unknown>, ...BooleanMatch<T, unknown>[]]
): BooleanMatch<CollectionValue<T>, CollectionValue<T>> {
  if (steps.length === 0)
    throw new AuthoringError("inOrder(): needs at least one step; pass item matches");
  for (const [index, step] of steps.entries()) requireMatch("inOrder", `step ${index + 1}`, step);
  const expects = `in order: ${steps.map((s) => `(${s.expects})`).join(" then ")}`;
  return {
    kind: "match",
    name: "inOrder",
    expects,
    children: steps as readonly AnyMatch[],
    evaluate(value) {
      const read = readCollection<T>(value);
      if (read.state === "unavailable" || read.state === "invalid")
        return notReadable("inOrder", expects, read);
      const walked = walkSteps(steps, read.items, expects);
      if ("wrong" in walked) return walked.wrong;
      const { found, unknown } = walked;
      const open = read.state === "partial" || unknown > 0;
      const children = steps.map((s, i) =>
        i < found.length
          ? node("matched", s.name, s.expects, `item ${found[i]} matched`, found[i])
          : node(open ? "unavailable" : "mismatched", s.name, s.expects, "no later item matched"),
      );
      if (found.length === steps.length) {
        return node(
          "matched",
          "inOrder",
          expects,
          `steps matched at items ${found.join(", ")}`,
          preview(found),
          children,
        );
      }
      return node(
        open ? "unavailable" : "mismatched",
        "inOrder",
        expects,
        `only ${found.length} of ${steps.length} steps found in order` +
          (open
            ? ` and the rest cannot be ruled out (${read.state === "partial" ? completeness(read) : `${unknown} items unavailable`})`
            : ""),
        preview(found),
        children,
      );
    },
  };
}

/**
 * The items where each step of `inOrder` matched in turn, and how many items a step could not
 * judge for missing evidence; or its wrongType node for the first item of the wrong type for a step.
 */
function walkSteps<T>(
  steps: readonly BooleanMatch<T, unknown>[],
  items: readonly T[],
  expects: string,
): { found: number[]; unknown: number } | { wrong: MatchResult } {
  const found: number[] = [];
  let unknown = 0;
  for (let index = 0; index < items.length && found.length < steps.length; index++) {
    const step = steps[found.length]!;
    const state = stateOf(step, items[index] as T);
    if (state === "matched") found.push(index);
    else if (state === "unavailable") {
      const where = `step ${found.length + 1}, item ${index}`;
      const wrong = wrongTypeWithin("inOrder", expects, where, step.evaluate(items[index] as T));
      if (wrong) return { wrong };
      unknown++;
    }
  }
  return { found, unknown };
}
