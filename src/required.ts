import { AuthoringError } from "./errors.js";

/** What kind of value `value` is, for a message: "undefined", "null", "an array", "a string"… */
export function valueKind(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  if (value === "") return "an empty string";
  if (Array.isArray(value)) return "an array";
  return /^[aeiou]/.test(typeof value) ? `an ${typeof value}` : `a ${typeof value}`;
}

/**
 * Refuse a definition's required text field (an id, a description) that is not a non-empty
 * string, when the definition is made: left out, it would fail later far from it, or name
 * the definition "undefined" in reports. `what` says what the field holds.
 * @example
 * requireText("bindScorer", "id", undefined, "the scorer's name in reports");
 * // AuthoringError: bindScorer: `id` must be a non-empty string, the scorer's name in reports; got undefined
 */
export function requireText(
  where: string,
  field: string,
  value: unknown,
  what: string,
): asserts value is string {
  if (typeof value === "string" && value !== "") return;
  throw new AuthoringError(
    `${where}: \`${field}\` must be a non-empty string, ${what}; got ${valueKind(value)}`,
  );
}

/**
 * Refuse options that are not an object (left out, or a string where `{ … }` belongs), which
 * would otherwise fail as a TypeError on their first field. `example` shows the object.
 * @example
 * requireOptions("openAICompatibleProvider", undefined, '{ baseURL: "http://localhost:11434/v1" }');
 * // AuthoringError: openAICompatibleProvider: options must be an object such as { baseURL: … }; got undefined
 */
export function requireOptions(
  where: string,
  value: unknown,
  example: string,
): asserts value is object {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return;
  throw new AuthoringError(
    `${where}: options must be an object such as ${example}; got ${valueKind(value)}`,
  );
}

/**
 * Refuse a definition's required callback that is not a function, when the definition is made
 * (it would otherwise throw "… is not a function" on every call). `what` is its shape.
 * @example
 * requireFunction('implementTool("acme.t")', "run", undefined, "(input, context) => output");
 * // AuthoringError: implementTool("acme.t"): `run` must be a function (input, context) => output; got undefined
 */
export function requireFunction(
  where: string,
  field: string,
  value: unknown,
  what: string,
): asserts value is (...args: never[]) => unknown {
  if (typeof value === "function") return;
  throw new AuthoringError(
    `${where}: \`${field}\` must be a function ${what}; got ${valueKind(value)}`,
  );
}
