import { AuthoringError } from "../errors.js";
import { type KnownKeys, refuseUnknownKeys } from "../known-keys.js";
import { type CaptureBudget, type CaptureLimits, overBudgetOf, resolveCapture } from "./capture.js";
import { notACollection, readCollection, scan } from "./collection.js";
import { describe, node } from "./result.js";
import type {
  AnyMatch,
  BooleanMatch,
  MatchFact,
  MatchResult,
  MaterialCollection,
} from "./types.js";

/** A match over an adapter's facts: what `check(match)` in an adapter's assertions takes. */
export interface ContextCheck<in Ctx> {
  readonly kind: "context-match" | "material-match";
  readonly name: string;
  readonly expects: string;
  readonly match: AnyMatch;
  readonly evaluate: (ctx: Ctx) => MatchResult;
}

/** Reads one fact from the adapter's facts and matches it. */
export interface ContextMatch<in Ctx, V> extends ContextCheck<Ctx> {
  readonly kind: "context-match";
  readonly read: (ctx: Ctx) => MatchFact<V>;
  readonly capture?: CaptureBudget;
}

/** The items a material match selected, with the completeness of the selection. */
export type MaterialSelection<Item> = MaterialCollection<Item> & { readonly result: MatchResult };

/** Reads a collection from the facts, within a capture budget, and selects the items that match. */
export interface MaterialMatch<in Ctx, Item> extends ContextCheck<Ctx> {
  readonly kind: "material-match";
  readonly capture: CaptureBudget;
  /** The selected items (for t.closeQA), with the result tree. */
  readonly select: (ctx: Ctx) => MaterialSelection<Item>;
}

/** Definition accepted by {@link defineContextMatch}. */
export interface ContextMatchDefinition<Ctx, V> {
  name: string;
  read: (ctx: Ctx) => MatchFact<V>;
  match: BooleanMatch<V, unknown>;
  /** Optional budget on the fact's value (walked as a one-item collection). */
  capture?: CaptureLimits | undefined;
}
const contextMatchDefinitionKeys = {
  name: true,
  read: true,
  match: true,
  capture: true,
} satisfies KnownKeys<ContextMatchDefinition<unknown, unknown>>;

/** Definition accepted by {@link defineMaterialMatch}. */
export interface MaterialMatchDefinition<Ctx, Item> {
  name: string;
  read: (ctx: Ctx) => MaterialCollection<Item> | readonly Item[];
  /** Which items belong to the material. */
  match: BooleanMatch<Item, unknown>;
  /** Limits on what is read; defaults in `defaultCapture`, hard maxima in `maxCapture`. */
  capture?: CaptureLimits | undefined;
}
const materialMatchDefinitionKeys = {
  name: true,
  read: true,
  match: true,
  capture: true,
} satisfies KnownKeys<MaterialMatchDefinition<unknown, unknown>>;

function validate(what: string, definition: object, known: Readonly<Record<string, true>>): void {
  const { name, read, match } = definition as { name?: unknown; read?: unknown; match?: unknown };
  refuseUnknownKeys(
    typeof name === "string" && name ? `${what}("${name}")` : what,
    definition,
    known,
  );
  if (typeof name !== "string" || name.length === 0) {
    throw new AuthoringError(`${what}: name must be a non-empty string, got ${describe(name)}`);
  }
  if (typeof read !== "function")
    throw new AuthoringError(`${what}("${name}"): read must be a function`);
  if ((match as AnyMatch | undefined)?.kind !== "match") {
    throw new AuthoringError(
      `${what}("${name}"): match must be a match built with niceeval/expect`,
    );
  }
}

/**
 * A match over one fact of the adapter's facts: `read` returns the fact (or why it is
 * unavailable), `match` decides it.
 * @example
 * defineContextMatch<SupportFacts, MaterialCollection<Speech>>({
 *   name: "speech-delivery",
 *   read: (ctx) => ({ state: "available", value: ctx.speeches }),
 *   match: filterWhere(actorMatch("agent"), countWhere(isDefined(), atLeast(1))),
 * })
 */
export function defineContextMatch<Ctx, V>(
  definition: ContextMatchDefinition<Ctx, V>,
): ContextMatch<Ctx, V> {
  validate("defineContextMatch", definition, contextMatchDefinitionKeys);
  const { name, read, match } = definition;
  const capture = definition.capture
    ? resolveCapture(`defineContextMatch("${name}")`, definition.capture)
    : undefined;
  const expects = `${name}: ${match.expects}`;
  return {
    kind: "context-match",
    name,
    expects,
    match: match as AnyMatch,
    read,
    ...(capture ? { capture } : {}),
    evaluate(ctx) {
      const fact = read(ctx);
      if (fact.state !== "available") {
        return node("unavailable", name, expects, fact.reason ?? "fact unavailable", "unavailable");
      }
      const limited = capture
        ? overBudgetOf([fact.value], capture, `defineContextMatch("${name}")`)
        : undefined;
      if (limited) return node("unavailable", name, expects, limited);
      const inner = match.evaluate(fact.value);
      return node(inner.state, name, expects, inner.reason, undefined, [inner]);
    },
  };
}

/**
 * A match that reads a collection from the facts within a capture budget and selects the
 * items that match. Checked, it matches when at least one item is selected (unavailable when
 * none is and the collection is partial); given to t.closeQA, the selected items are the material.
 * @example
 * defineMaterialMatch<SupportFacts, Speech>({
 *   name: "actor-speeches",
 *   read: (ctx) => ctx.speeches,
 *   match: actorMatch("agent"),
 *   capture: { maxItems: 1024, maxBytes: 512 * 1024, maxNodes: 65536, maxDepth: 32 },
 * })
 */
export function defineMaterialMatch<Ctx, Item>(
  definition: MaterialMatchDefinition<Ctx, Item>,
): MaterialMatch<Ctx, Item> {
  validate("defineMaterialMatch", definition, materialMatchDefinitionKeys);
  const { name, match } = definition;
  const capture = resolveCapture(`defineMaterialMatch("${name}")`, definition.capture);
  const expects = `items of ${name} where ${match.expects}`;

  const select = (ctx: Ctx): MaterialSelection<Item> => {
    const read = readCollection<Item>(definition.read(ctx));
    if (read.state === "invalid") {
      const result = notACollection(name, expects, read.value);
      return { state: "unavailable", reason: result.reason, result };
    }
    if (read.state === "unavailable") {
      const result = node("unavailable", name, expects, read.reason, "unavailable");
      return { state: "unavailable", reason: read.reason, result };
    }
    const limited = overBudgetOf(read.items, capture, `defineMaterialMatch("${name}")`);
    if (limited) {
      return {
        state: "unavailable",
        reason: limited,
        result: node("unavailable", name, expects, limited),
      };
    }
    const items: Item[] = [];
    const { unknown, firstUnknown, wrong } = scan(match, read.items, (item) => items.push(item), {
      name,
      expects,
    });
    if (wrong) return { state: "unavailable", reason: wrong.reason, result: wrong };
    const observed = { selected: items.length, seen: read.items.length, collection: read.state };
    const samples = firstUnknown ? [firstUnknown] : [];
    if (items.length > 0) {
      const result = node(
        "matched",
        name,
        expects,
        `${items.length} of ${read.items.length} items selected`,
        observed,
        samples,
      );
      return read.state === "partial" || unknown > 0
        ? { state: "partial", items, reason: partialReason(read, unknown, firstUnknown), result }
        : { state: "complete", items, result };
    }
    if (read.state === "partial" || unknown > 0) {
      const reason = partialReason(read, unknown, firstUnknown);
      const result = node(
        "unavailable",
        name,
        expects,
        `no item selected among those seen; ${reason}`,
        observed,
        samples,
      );
      return { state: "partial", items, reason, result };
    }
    const result = node(
      "mismatched",
      name,
      expects,
      `none of the ${read.items.length} items matched`,
      observed,
    );
    return { state: "complete", items, result };
  };

  return {
    kind: "material-match",
    name,
    expects,
    match: match as AnyMatch,
    capture,
    select,
    evaluate: (ctx) => select(ctx).result,
  };
}

function partialReason(
  read: MaterialCollection<unknown>,
  unknown: number,
  first: MatchResult | undefined,
): string {
  if (read.state === "partial") return `collection is partial: ${read.reason}`;
  return `${unknown} items could not be matched: ${first?.reason ?? "unavailable"}`;
}
