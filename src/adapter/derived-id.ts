import type { Runnable } from "../eval/runnable.js";
import { joinWords } from "../plural.js";
import { evalIdFor } from "./slug.js";
import type { ScoreEval } from "./types.js";

/**
 * How to give a score eval another id when its id came from its adapter's name and description:
 * two descriptions that differ but slug alike, or the one description every eval one function
 * makes that way has (seed 001's `createSupportReview(…).evaluation`).
 */
export function derivedIdHint(holder: Runnable, left: readonly Runnable[]): string {
  const derived = left.filter((runnable) => derivedId(runnable) !== undefined);
  const first = derived[0] && derivedId(derived[0]);
  if (first === undefined) return "";
  const { adapter, method } = first;
  const descriptions = [holder, ...derived]
    .map((runnable) => derivedId(runnable)?.description)
    .filter((d, i, all): d is string => d !== undefined && all.indexOf(d) === i);
  if (descriptions.length > 1) {
    const both = descriptions.length === 2;
    return `: this id is derived from the adapter name "${adapter}" and the description, and the descriptions ${joinWords(descriptions.map((d) => JSON.stringify(d)))} ${both ? "both" : "all"} slug to it; pass \`id\` to ${method}({ id, … }) of ${both ? "one of them" : "all but one"}`;
  }
  return `: this id is derived from the adapter name "${adapter}" and the description, the same for every eval one function makes, so give that function an id parameter and pass it to ${method}({ id, … })`;
}

/** The adapter, description and method of a score eval whose id was derived from them. */
function derivedId(
  runnable: Runnable,
): { adapter: string; description: string; method: string } | undefined {
  const { adapter, description, kind } = runnable as Partial<ScoreEval>;
  if (runnable.style !== "score" || typeof adapter !== "string" || typeof description !== "string")
    return undefined;
  if (runnable.id !== evalIdFor(adapter, description)) return undefined;
  return {
    adapter,
    description,
    method: kind === "pass-fail-eval" ? "defineEval" : "defineScoreEval",
  };
}
