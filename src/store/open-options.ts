import { NiceevalError } from "../errors.js";
import { givenText } from "../eval/timeout.js";
import { unknownKeysIn } from "../known-keys.js";

/**
 * The options of a function that opens a store (`openStore`, `openSqliteStore`,
 * `openPostgresStore`), checked before anything is opened, created or connected to: a misspelt
 * key would be ignored (`{ readonly: true }` opened a new store to write instead of refusing a
 * missing one). A USAGE error names the function (`where`), the key and the key it meant.
 */
export function checkOpenOptions(
  where: string,
  options: unknown,
  known: Readonly<Record<string, true>>,
): void {
  if (typeof options !== "object" || options === null || Array.isArray(options))
    throw new NiceevalError(
      "USAGE",
      `${where}: options must be an object ({ ${Object.keys(known).join(", ")} }) when given, got ${givenText(options)}`,
    );
  const unknown = unknownKeysIn(options, known, "options");
  if (unknown !== undefined) throw new NiceevalError("USAGE", `${where}: ${unknown}`);
}
