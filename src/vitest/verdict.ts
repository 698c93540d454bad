import type { RunnerTaskResult, TestContext } from "vitest";
import type { ItemOutcome } from "./outcome.js";

/**
 * Follow one try of an item's test to Vitest's verdict, so that what niceeval records of the item
 * (`meta.niceeval`, the summary) never says it passed when Vitest failed its test. Call it first
 * in the test; give the returned function niceeval's judgment of the item. When the try ends
 * (Vitest's `onTestFinished`, after the `afterEach` hooks, which may fail the test too), `record`
 * gets the item's outcome: niceeval's judgment, unless Vitest failed a test niceeval passed (an
 * `expect.soft` or `expect` of the user's own that failed in the task or a scorer and was not
 * thrown through it, an `afterEach` hook) or failed it before niceeval judged it (Vitest's own
 * timeout): the outcome then does not pass and its `testError` says what Vitest failed it for.
 * A judgment given after the try ended (a task still running past Vitest's timeout) is ignored.
 */
export function followVerdict(
  context: TestContext,
  item: string,
  record: (outcome: ItemOutcome) => void,
): (judged: ItemOutcome) => void {
  // A retried test keeps the errors of its earlier tries: this try's come after them.
  const earlierErrors = context.task.result?.errors?.length ?? 0;
  let judged: ItemOutcome | undefined;
  let finished = false;
  context.onTestFinished(({ task }) => {
    finished = true;
    const outcome = agreeWithVitest(judged, item, task.result, earlierErrors);
    if (outcome !== undefined) record(outcome);
  });
  return (outcome) => {
    if (!finished) judged = outcome;
  };
}

/**
 * The item's outcome as Vitest's verdict on the try leaves it: a failed test never passes.
 * `undefined` when niceeval did not judge it and Vitest did not fail it (a skipped test).
 */
export function agreeWithVitest(
  judged: ItemOutcome | undefined,
  item: string,
  result: Pick<RunnerTaskResult, "state" | "errors"> | undefined,
  earlierErrors = 0,
): ItemOutcome | undefined {
  if (result?.state !== "fail" || judged?.passed === false) return judged;
  const testError = whyFailed(result.errors?.slice(earlierErrors) ?? []);
  if (judged !== undefined) return { ...judged, passed: false, testError };
  return { item, passed: false, score: null, scores: [], testError };
}

/** The first error Vitest recorded against the try, as `Name: message`, and how many more. */
function whyFailed(errors: readonly { name?: unknown; message?: unknown }[]): string {
  const [first] = errors;
  if (first === undefined) return "Vitest failed the test";
  const message = typeof first.message === "string" ? first.message.split("\n")[0] : "";
  const name = typeof first.name === "string" && first.name !== "" ? first.name : "Error";
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : "";
  return `${name}: ${message}${more}`;
}
