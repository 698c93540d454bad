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
