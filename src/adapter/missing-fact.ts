/** The states niceeval reads on evidence: a MatchFact's, then a MaterialCollection's. */
const evidenceStates = ["available", "unavailable", "complete", "partial"];

/**
 * Why a check could not judge a value of the wrong type, after what was observed and what the
 * matcher takes (`observed`): the likely cause in the eval or its adapter, since the application's
 * answer was never judged. `given` is the value handed to the check, when it is known.
 * @example
 * wrongTypeReason("observed undefined, but atMost takes a number", { value: undefined });
 * // "observed undefined, but atMost takes a number; t.<fact> is undefined when the adapter …"
 */
export function wrongTypeReason(observed: string, given?: { value: unknown }): string {
  const value = given?.value;
  if (given !== undefined && value === undefined) {
    return (
      `${observed}; t.<fact> is undefined when the adapter gave no value for that fact: ` +
      `return it from create, or { state: "unavailable", reason } when the app cannot tell`
    );
  }
  const state =
    typeof value === "object" && value !== null ? (value as { state?: unknown }).state : undefined;
  if (typeof state === "string" && !evidenceStates.includes(state)) {
    return (
      `${observed}; its state ${JSON.stringify(state)} is none niceeval reads ` +
      `(a fact's "available" or "unavailable", a collection's "complete", "partial" or "unavailable")`
    );
  }
  return `${observed}; fix the value the check is given or the matcher (the app's answer was not judged)`;
}
