import { AuthoringError } from "./errors.js";
import { joinWords } from "./plural.js";
import { closest } from "./suggest.js";

/**
 * Every key of a definition type, each `true`. Written beside the type as
 * `{ … } satisfies KnownKeys<Definition>`, so a key added to one and not the other fails to compile.
 */
export type KnownKeys<T> = Record<keyof T, true>;

/**
 * Refuse the keys of a user's definition object that its type does not have: a misspelt option
 * (`gate` for `gates`, `treshold`) would otherwise be ignored without a word wherever types are not
 * checked (`niceeval run` compiles TypeScript without checking it; `.eval.js` files). The message
 * names `where` (the function, and the eval when known), each unknown key, the key it most likely
 * meant and the keys there are. `path` names the field the object is (`capture`).
 * @example
 * refuseUnknownKeys('defineSuite("greetings")', { id: "greetings", gate: ["a"] }, suiteKeys);
 * // AuthoringError: defineSuite("greetings"): unknown key "gate" (did you mean "gates"?); known keys: id, …
 */
export function refuseUnknownKeys(
  where: string,
  given: unknown,
  known: Readonly<Record<string, true>>,
  path?: string,
): void {
  if (typeof given !== "object" || given === null) return;
  const unknown = Object.keys(given).filter((key) => !Object.hasOwn(known, key));
  if (unknown.length === 0) return;
  throw new AuthoringError(`${where}: ${unknownKeysMessage(unknown, Object.keys(known), path)}`);
}

/**
 * What {@link refuseUnknownKeys} says of keys that are not among `keys`: each with the key it
 * most likely meant, then the keys there are. Also the message of a strict zod object's unknown
 * keys ({@link unknownKeysError}).
 * @example
 * unknownKeysMessage(["shoud"], ["situation", "should", "shouldNot"], "expected");
 * // 'unknown key "expected.shoud" (did you mean "expected.should"?); known keys: expected.situation, …'
 */
export function unknownKeysMessage(
  unknown: readonly string[],
  keys: readonly string[],
  path?: string,
): string {
  const field = (key: string) => (path === undefined ? key : `${path}.${key}`);
  const said = unknown.map((key) => {
    const meant = meantKey(key, keys);
    return `"${field(key)}"${meant === undefined ? "" : ` (did you mean "${field(meant)}"?)`}`;
  });
  return `unknown key${unknown.length === 1 ? "" : "s"} ${joinWords(said)}; known keys: ${keys.map(field).join(", ")}`;
}

/**
 * The `error` option of a `z.strictObject(shape, …)` that words its unknown keys as
 * {@link refuseUnknownKeys} does, with "did you mean" (the issue's path names the object).
 */
export function unknownKeysError(shape: object) {
  const keys = Object.keys(shape);
  return {
    error: (issue: { code?: string; keys?: readonly string[] }) =>
      issue.code === "unrecognized_keys" ? unknownKeysMessage(issue.keys ?? [], keys) : undefined,
  };
}

/** The known key a mistyped one most likely meant: the same but for case, else the closest. */
function meantKey(key: string, keys: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  return keys.find((known) => known.toLowerCase() === lower) ?? closest(key, keys);
}
