import { shown } from "../expect/mismatch.js";

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

const evidenceKeys = new Set(["state", "value", "items", "reason"]);

/**
 * Why a value given to t.check is evidence with a state niceeval does not read (a misspelt
 * `"availble"`), or undefined: an object of only evidence keys, its value or items among them,
 * whose state is no evidence state. Matched as a plain value it would judge the wrapper.
 */
export function unreadEvidence(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  if (!keys.every((key) => evidenceKeys.has(key))) return undefined;
  if (!keys.includes("value") && !keys.includes("items")) return undefined;
  const state = (value as { state?: unknown }).state;
  if (typeof state !== "string" || evidenceStates.includes(state)) return undefined;
  return (
    `observed ${shown(value)}, whose state ${JSON.stringify(state)} is none niceeval reads ` +
    `(a fact's "available" or "unavailable", a collection's "complete", "partial" or "unavailable"); ` +
    "fix the state the adapter gives (the app's answer was not judged)"
  );
}
