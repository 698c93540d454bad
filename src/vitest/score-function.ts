import { AsyncLocalStorage } from "node:async_hooks";
import type { TestedCase } from "../eval/to-vitest.js";
import {
  type CheckedExpected,
  createScorer,
  type NamedScore,
  type NamedScorer,
  ScorerResultError,
} from "../scorers/create-scorer.js";
import { isThenable } from "../tool/run-tool.js";

/**
 * A plain scoring function, seed 003's `Scorer` shape: `{ output, expected, input, ...extra }`
 * in, a `Score` (`{ name, score, metadata? }`) out. Under evaluate() its score is named by the
 * `name` it returns. Its arguments are compared both ways (a method's), so a scorer that asks for
 * typed extra fields (`{ input: string }`) fits, and one for another output, or for an expected
 * value unrelated to the items' (see {@link CheckedExpected}), does not.
 */
export type ScoreFunction<Output, Expected = unknown> = {
  bivariant(
    // biome-ignore lint/suspicious/noExplicitAny: extra fields are the scorer's business
    args: { output: Output; expected: CheckedExpected<Expected> } & Record<string, any>,
  ): NamedScore | Promise<NamedScore>;
}["bivariant"];

/** The names plain functions gave their scores in the item now running, by scorer index. */
const givenNames = new AsyncLocalStorage<(string | undefined)[]>();

/**
 * A plain scoring function as a createScorer scorer, labelled by the function's own name (or
 * `scorers[i]`) until its score names itself; a score without a name fails the scorer.
 */
export function fromScoreFunction<Output>(
  fn: ScoreFunction<Output>,
  index: number,
): NamedScorer<Output, unknown> {
  const label = fn.name || `scorers[${index}]`;
  const named = (result: unknown): NamedScore => {
    // createScorer's advice ({ score }) would lead to the next error: this score needs its name.
    if (typeof result !== "object" || result === null)
      throw new ScorerResultError(label, notAScore(label, result));
    const name = (result as { name?: unknown }).name;
    if (typeof name !== "string" || name.trim() === "") {
      throw new ScorerResultError(
        label,
        "returned a score without a `name`; a function in `scorers` names its score: return { name, score, metadata? }, or build the scorer with createScorer",
      );
    }
    const names = givenNames.getStore();
    if (names) names[index] = name;
    // Its `score` and `metadata` are checked as createScorer checks a callback's result.
    return result as NamedScore;
  };
  return createScorer<Output, unknown>({
    name: label,
    score: (args) => {
      const result = fn(args);
      return isThenable(result) ? Promise.resolve(result).then(named) : named(result);
    },
  });
}

/** What a plain function returned instead of a score object, and the named score to return. */
function notAScore(label: string, result: unknown): string {
  const name = JSON.stringify(label);
  const named = "a function in `scorers` names its score";
  if (typeof result === "number")
    return `returned the bare number ${result}; ${named}: return { name: ${name}, score: ${result} } instead of ${result}`;
  if (result === null)
    return `returned null; ${named}: return { name: ${name}, score: null } for no score`;
  const got = result === undefined ? "nothing" : typeof result;
  return `returned ${got}; ${named}: return { name: ${name}, score, metadata? }`;
}

/** Run an item, then label each plain function's judgment with the name its score gave. */
export async function withGivenNames(run: () => Promise<TestedCase>): Promise<TestedCase> {
  const names: (string | undefined)[] = [];
  const tried = await givenNames.run(names, run);
  names.forEach((name, index) => {
    const judgment = tried.record.judgments[index];
    if (judgment !== undefined && name !== undefined) judgment.label = name;
  });
  return tried;
}
