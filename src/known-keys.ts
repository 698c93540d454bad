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
  const problem = unknownKeysIn(given, known, path);
  if (problem !== undefined) throw new AuthoringError(`${where}: ${problem}`);
}

/**
 * What {@link unknownKeysMessage} says of the keys of `given` that `known` does not have, or
 * undefined when it has none: for checks that throw an error of their own code.
 * @example
 * unknownKeysIn({ readonly: true }, { cwd: true, readOnly: true }, "options");
 * // 'unknown key "options.readonly" (did you mean "options.readOnly"?); known keys: options.cwd, options.readOnly'
 */
export function unknownKeysIn(
  given: object,
  known: Readonly<Record<string, true>>,
  path?: string,
): string | undefined {
  const unknown = Object.keys(given).filter((key) => !Object.hasOwn(known, key));
  return unknown.length === 0 ? undefined : unknownKeysMessage(unknown, Object.keys(known), path);
}

/**
 * What {@link refuseUnknownKeys} says of keys that are not among `keys`: each with the key it
 * most likely meant (`aliases` first: a key another tool names otherwise), then the keys there
 * are. Also what {@link refuseMisspeltKeys} says.
 * @example
 * unknownKeysMessage(["shoud"], ["situation", "should", "shouldNot"], "expected");
 * // 'unknown key "expected.shoud" (did you mean "expected.should"?); known keys: expected.situation, …'
 */
export function unknownKeysMessage(
  unknown: readonly string[],
  keys: readonly string[],
  path?: string,
  aliases: Readonly<Record<string, string>> = {},
): string {
  const field = (key: string) => (path === undefined ? key : `${path}.${key}`);
  const said = unknown.map((key) => {
    // A key another tool spells its own way (promptfoo's `vars` for a case's `input`).
    const meant = (Object.hasOwn(aliases, key) ? aliases[key] : undefined) ?? meantKey(key, keys);
    return `"${field(key)}"${meant === undefined ? "" : ` (did you mean "${field(meant)}"?)`}`;
  });
  return `unknown key${unknown.length === 1 ? "" : "s"} ${joinWords(said)}; known keys: ${keys.map(field).join(", ")}`;
}

/**
 * Refuse the keys of a scorer's options that are misspellings of known ones (`mustcall`,
 * `shoud`), as {@link refuseUnknownKeys} words them; other keys are left alone, since an author
 * may pass a wider object (a case's `expected` that also holds `calls`). Throws AuthoringError.
 * @example
 * refuseMisspeltKeys("expectations", { shoud: ["…"], calls: {} }, outcomeKeys, "expected");
 * // AuthoringError: expectations: unknown key "expected.shoud" (did you mean "expected.should"?); known keys: …
 */
export function refuseMisspeltKeys(
  where: string,
  given: unknown,
  known: Readonly<Record<string, true>>,
  path?: string,
): void {
  const problem = misspeltKeysMessage(given, Object.keys(known), path);
  if (problem !== undefined) throw new AuthoringError(`${where}: ${problem}`);
}

/**
 * What {@link refuseMisspeltKeys} says of the keys of `given` that misspell one of `keys`, or
 * undefined when none does: for a scorer that answers such input with an errored Score instead.
 * @example
 * misspeltKeysMessage({ draf: "draft-07" }, ["actual", "schema", "draft"]);
 * // 'unknown key "draf" (did you mean "draft"?); known keys: actual, schema, draft'
 */
export function misspeltKeysMessage(
  given: unknown,
  keys: readonly string[],
  path?: string,
): string | undefined {
  const misspelt = misspeltKeys(given, keys);
  return misspelt.length === 0 ? undefined : unknownKeysMessage(misspelt, keys, path);
}

/** A zod issue as a `superRefine` check sees the issues of the object it checks. */
interface RawIssue {
  readonly path?: readonly PropertyKey[] | undefined;
  readonly input?: unknown;
}

/**
 * A zod `superRefine` check for a loose object of `shape`: a key that misspells one of the shape's
 * is an issue worded as {@link refuseMisspeltKeys} words it (a ToolInputError naming the object).
 * Run it even when the object failed (`{ when: () => true }`): a misspelt required key
 * (`durationMS`, `acutal`) leaves the key it meant undefined, and that key's issue ("expected
 * number, received undefined") gives way to the misspelling, which comes first.
 */
export function misspeltKeysCheck(shape: object) {
  const keys = Object.keys(shape);
  return (
    value: unknown,
    context: {
      addIssue: (issue: { code: "custom"; message: string }) => void;
      issues: RawIssue[];
    },
  ) => {
    const misspelt = misspeltKeys(value, keys);
    if (misspelt.length === 0) return;
    const given = value as object;
    const meant = new Set(misspelt.map((key) => meantKey(key, keys)));
    const explained = (issue: RawIssue) =>
      issue.path?.length === 1 &&
      issue.input === undefined &&
      meant.has(issue.path[0] as string) &&
      !Object.hasOwn(given, issue.path[0] as string);
    const others = context.issues.filter((issue) => !explained(issue));
    context.issues.length = 0;
    context.addIssue({ code: "custom", message: unknownKeysMessage(misspelt, keys) });
    context.issues.push(...others);
  };
}

function misspeltKeys(given: unknown, keys: readonly string[]): string[] {
  if (typeof given !== "object" || given === null) return [];
  return Object.keys(given).filter(
    (key) => !keys.includes(key) && meantKey(key, keys) !== undefined,
  );
}

/**
 * The known key a mistyped one most likely meant: the same but for case, else the closest, else
 * the one whose name before its unit is closest (`timout` meant `timeoutMs`).
 */
function meantKey(key: string, keys: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  return (
    keys.find((known) => known.toLowerCase() === lower) ??
    closest(key, keys) ??
    byStem(key, keys) ??
    byPrefix(lower, keys)
  );
}

/** The longest key among `keys` that `lower` starts with (`cacheDirectory` for `cacheDir`). */
function byPrefix(lower: string, keys: readonly string[]): string | undefined {
  let meant: string | undefined;
  for (const known of keys)
    if (lower.startsWith(known.toLowerCase()) && known.length > (meant?.length ?? 2)) meant = known;
  return meant;
}

/** The key among `keys` with a unit (`timeoutMs`) whose name without it is closest to `key`. */
function byStem(key: string, keys: readonly string[]): string | undefined {
  const stems = new Map<string, string>();
  for (const known of keys) if (/[a-z]Ms$/.test(known)) stems.set(known.slice(0, -2), known);
  const stem = closest(key, stems.keys());
  return stem === undefined ? undefined : stems.get(stem);
}
