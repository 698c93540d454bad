import type { KnownKeys } from "../known-keys.js";
import { joinWords } from "../plural.js";
import type { TestTools } from "./types.js";

/** The names `t` gives its own tools: a fact of the same name could never be read as `t.<name>`. */
export const testToolNames = {
  check: true,
  score: true,
  closeQA: true,
  usage: true,
  elapsedMs: true,
  skip: true,
} satisfies KnownKeys<TestTools<unknown>>;

/**
 * Why what `create` returned is no object of facts, or undefined when it is one (or nothing, for
 * an adapter without facts): a number, a string or an array would leave every `t.<fact>` undefined.
 * @example
 * notFacts("status", 200);
 * // 'create returned 200 (a number) for eval "status", not an object of facts; return …'
 */
export function notFacts(evalId: string, facts: unknown): string | undefined {
  if (facts === undefined || facts === null) return undefined;
  if (typeof facts === "object" && !Array.isArray(facts)) return undefined;
  return (
    `create returned ${shownReturn(facts)} for eval "${evalId}", not an object of facts; ` +
    `return the facts as an object (e.g. { answer: { state: "available", value } }), or nothing ` +
    "when the adapter has no facts"
  );
}

function shownReturn(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (typeof value === "function") return "a function";
  const text = typeof value === "string" ? JSON.stringify(value) : String(value);
  return `${text.length > 40 ? `${text.slice(0, 40)}…` : text} (a ${typeof value})`;
}

/**
 * Why the facts `create` returned cannot be the test's `t`, or undefined when they can: an own
 * key named as one of the test tools would be replaced by it (`t.elapsedMs` is niceeval's timing,
 * not the application's), so a gate on it would judge the wrong number.
 * @example
 * shadowedFacts("latency", { elapsedMs: 90_000 });
 * // 'the facts that create returned for eval "latency" have the key "elapsedMs", a name taken by …'
 */
export function shadowedFacts(evalId: string, facts: unknown): string | undefined {
  if (typeof facts !== "object" || facts === null) return undefined;
  const taken = Object.keys(testToolNames).filter((name) => Object.hasOwn(facts, name));
  if (taken.length === 0) return undefined;
  const one = taken.length === 1;
  const first = taken[0]!;
  return (
    `the facts that create returned for eval "${evalId}" have the key${one ? "" : "s"} ` +
    `${joinWords(taken.map((name) => `"${name}"`))}, ${one ? "a name" : "names"} taken by the ` +
    `test context's own ${joinWords(taken.map((name) => `t.${name}`))}, so t.${first} would not ` +
    `be the fact; rename the fact${one ? "" : "s"} (e.g. "app${first[0]!.toUpperCase()}${first.slice(1)}")`
  );
}

/**
 * Why the adapter's assertions cannot all be read on `t`, or undefined when they can: one named
 * as a test tool would be replaced by it (`t.check` is niceeval's), and a fact of the same name as
 * an assertion would be hidden by it, so the test would call, or read, something else than its
 * author meant.
 * @example
 * shadowedAssertions("voice.greets", { check: () => {} }, {});
 * // 'its assertion "check" has a name taken by the test context's own t.check, …' (the adapter's)
 */
export function shadowedAssertions(
  evalId: string,
  assertions: unknown,
  facts: unknown,
): string | undefined {
  if (typeof assertions !== "object" || assertions === null) return undefined;
  const names = Object.keys(assertions);
  const taken = names.filter((name) => Object.hasOwn(testToolNames, name));
  if (taken.length > 0) {
    const one = taken.length === 1;
    return (
      `its assertion${one ? "" : "s"} ` +
      `${joinWords(taken.map((name) => `"${name}"`))} ${one ? "has a name" : "have names"} taken ` +
      `by the test context's own ${joinWords(taken.map((name) => `t.${name}`))}, so the test ` +
      `would never call ${one ? "it" : "them"}; rename ${one ? "it" : "them"} in \`assertions\``
    );
  }
  const hidden =
    typeof facts === "object" && facts !== null
      ? names.filter((name) => Object.hasOwn(facts, name))
      : [];
  if (hidden.length === 0) return undefined;
  const one = hidden.length === 1;
  return (
    `the facts that create returned for eval "${evalId}" have the key${one ? "" : "s"} ` +
    `${joinWords(hidden.map((name) => `"${name}"`))}, also the name${one ? "" : "s"} of ` +
    `${one ? "an assertion" : "assertions"}, so t.${hidden[0]} would be the assertion and the ` +
    `fact could not be read; rename the fact or the assertion`
  );
}
