import type { StandardSchemaV1 } from "@standard-schema/spec";
import { AuthoringError } from "../errors.js";
import { plural } from "../plural.js";
import { previewRegex } from "../scorers/deterministic/preview.js";
import { readCollection } from "./collection.js";
import { deepEqual } from "./deep-equal.js";
import { compileLinearRegex } from "./linear-regex.js";
import {
  describe,
  isNonFinite,
  node,
  nonFiniteNode,
  preview,
  stateOf,
  wrongTypeNode,
} from "./result.js";
import type { BooleanMatch, CollectionValue } from "./types.js";

/**
 * Matches a string containing `expected`, or a collection with an item equal to `expected`.
 * Over a partial collection a missing item is unavailable (it may be among the unseen).
 * @example
 * t.check(t.reply, includes("refund")).score(2);
 */
export function includes(expected: string): BooleanMatch<string | CollectionValue<string>>;
export function includes<T>(expected: T): BooleanMatch<CollectionValue<T>>;
export function includes(expected: unknown): BooleanMatch<unknown, never> {
  if (isNonFinite(expected)) {
    throw new AuthoringError(
      `includes(expected): ${String(expected)} is not a finite number; pass a finite value`,
    );
  }
  const expects = `includes ${describe(expected)}`;
  return {
    kind: "match",
    name: "includes",
    expects,
    params: { expected },
    evaluate(value) {
      // Text holds only text: includes(42) on "order 42" is the author's mix-up, never a mismatch.
      if (typeof value === "string" && typeof expected !== "string")
        return wrongTypeNode("includes", expects, value, textTakes(expected));
      if (typeof value === "string") {
        const found = value.includes(expected as string);
        return node(
          found ? "matched" : "mismatched",
          "includes",
          expects,
          found ? "substring found" : `substring not found in ${describe(value)}`,
          preview(value),
        );
      }
      const read = readCollection<unknown>(value);
      if (read.state === "invalid")
        return wrongTypeNode(
          "includes",
          expects,
          value,
          "a string, an array or a material collection",
        );
      if (read.state === "unavailable")
        return node("unavailable", "includes", expects, read.reason);
      const index = read.items.findIndex((item) => deepEqual(item, expected));
      const observed = { seen: read.items.length, collection: read.state };
      if (index >= 0)
        return node("matched", "includes", expects, `found at item ${index}`, observed);
      return read.state === "partial"
        ? node(
            "unavailable",
            "includes",
            expects,
            `not among the ${read.items.length} items seen; collection is partial (${read.reason})`,
            observed,
          )
        : node(
            "mismatched",
            "includes",
            expects,
            `not among the ${read.items.length} items`,
            observed,
          );
    },
  };
}

/** What `includes(expected)` takes when `expected` is not a string, for a reason. */
function textTakes(expected: unknown): string {
  const primitive = ["number", "boolean", "bigint"].includes(typeof expected);
  const hint = primitive ? `: includes(${JSON.stringify(String(expected))})` : "";
  return `an array or a material collection when looking for ${describe(expected)} (a string is searched only for a string${hint})`;
}

/**
 * Matches a string that `regex` matches, in time linear in the string whatever the pattern
 * (RE2, through re2js). Flags mean what they mean for every pattern niceeval runs: `y` anchors
 * at the start (`/a/y` does not match "ba"), `g` and `d` are ignored (a test is stateless). A
 * pattern RE2 cannot run (a backreference, a lookahead) makes the assertion errored with the
 * reason when evaluated.
 * @example
 * pattern(/order #\d+/i)
 */
export function pattern(regex: RegExp): BooleanMatch<string, string> {
  if (!(regex instanceof RegExp)) {
    throw new AuthoringError(`pattern(regex): expected a RegExp, got ${describe(regex)}`);
  }
  // The flags as given: a sticky regex anchors at the start here as in regex-match and --filter.
  const compiled = compileLinearRegex(regex.source, regex.flags);
  const expects = `matches ${previewRegex(regex.source, regex.flags)}`;
  return {
    kind: "match",
    name: "pattern",
    expects,
    params: { source: regex.source, flags: regex.flags },
    evaluate(value) {
      if (typeof value !== "string") return wrongTypeNode("pattern", expects, value, "a string");
      if (!compiled.ok) throw new AuthoringError(`pattern(regex): ${compiled.reason}`);
      const found = compiled.regex.test(value);
      return node(
        found ? "matched" : "mismatched",
        "pattern",
        expects,
        found ? "pattern found" : "pattern not found",
        preview(value),
      );
    },
  };
}

/**
 * Matches any value other than `undefined` and `null`.
 * @example
 * mapValue("replyId", (m: Message) => m.replyId, isDefined())
 */
export function isDefined<T>(): BooleanMatch<T, NonNullable<T>> {
  return {
    kind: "match",
    name: "isDefined",
    expects: "is defined",
    test: (value) =>
      isNonFinite(value)
        ? "unavailable"
        : value !== undefined && value !== null
          ? "matched"
          : "mismatched",
    evaluate(value) {
      if (isNonFinite(value)) return nonFiniteNode("isDefined", "is defined", value);
      const defined = value !== undefined && value !== null;
      return node(
        defined ? "matched" : "mismatched",
        "isDefined",
        "is defined",
        `observed ${describe(value)}`,
        preview(value),
      );
    },
  };
}

/**
 * Matches a value that a Standard Schema (zod, valibot, arktype…) accepts. Matching is
 * synchronous: a schema whose validation is asynchronous fails with an AuthoringError when
 * evaluated (the assertion is then reported as errored); use a synchronous schema.
 * @example
 * matches(z.object({ orderId: z.string() }))
 */
export function matches<Output>(
  schema: StandardSchemaV1<unknown, Output>,
): BooleanMatch<unknown, Output> {
  const standard = (schema as Partial<StandardSchemaV1> | undefined)?.["~standard"];
  if (!standard || typeof standard.validate !== "function") {
    throw new AuthoringError(
      `matches(schema): expected a Standard Schema (an object with "~standard".validate), got ${describe(schema)}`,
    );
  }
  const expects = `matches ${standard.vendor} schema`;
  return {
    kind: "match",
    name: "matches",
    expects,
    params: { vendor: standard.vendor },
    evaluate(value) {
      if (isNonFinite(value)) return nonFiniteNode("matches", expects, value);
      const outcome = standard.validate(value);
      if (outcome instanceof Promise) {
        outcome.catch(() => undefined);
        throw new AuthoringError(
          `matches(schema): the ${standard.vendor} schema validated asynchronously; niceeval matches are synchronous, so use a schema without async refinements or transforms`,
        );
      }
      if (!outcome.issues)
        return node("matched", "matches", expects, "accepted by the schema", preview(value));
      const first = outcome.issues[0];
      // Array.from, not path.map: a path that subclasses Array (arktype's) maps into its own
      // class, whose constructor read the length 0 as an element and gave the path "0".
      const path = Array.from(first?.path ?? [], (p) =>
        typeof p === "object" ? String(p.key) : String(p),
      ).join(".");
      const count = outcome.issues.length;
      return node(
        "mismatched",
        "matches",
        expects,
        `${plural(count, "issue")}; ${path || "(root)"}: ${first?.message ?? "rejected"}`,
        preview(value),
      );
    },
  };
}

/**
 * Names a projection of a value and matches the projected value; the seed's domain matches
 * (`actorMatch`, `positionMatch`…) are built with it.
 * @example
 * const actorMatch = (id: string) => mapValue("actorMatch", (s: Speech) => s.actorId, equals(id));
 */
export function mapValue<T, U>(
  name: string,
  map: (value: T) => U,
  match: BooleanMatch<NoInfer<U>, unknown>,
): BooleanMatch<T, T> {
  if (typeof name !== "string" || name.length === 0) {
    throw new AuthoringError(
      `mapValue(name, map, match): name must be a non-empty string, got ${describe(name)}`,
    );
  }
  if (typeof map !== "function")
    throw new AuthoringError(`mapValue("${name}", map, match): map must be a function`);
  if (match?.kind !== "match") {
    throw new AuthoringError(
      `mapValue("${name}", map, match): match must be a match built with niceeval/expect`,
    );
  }
  const expects = `${name}: ${match.expects}`;
  return {
    kind: "match",
    name,
    expects,
    children: [match as BooleanMatch<never, unknown>],
    test: (value) => stateOf(match, map(value)),
    evaluate(value) {
      const inner = match.evaluate(map(value));
      return node(inner.state, name, expects, inner.reason, undefined, [inner]);
    },
  };
}
