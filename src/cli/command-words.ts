import { redactUrl } from "../redact-url.js";
import { isPostgresUrl } from "../store/postgres/connection.js";

/** A word as a POSIX shell reads it back: as it is when it is safe, else in single quotes. */
export function shellWord(word: string): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The `--store` of a command niceeval suggests, as the user gave it to this one: nothing for the
 * default store; a PostgreSQL URL with its password shown as `***` (a suggestion is printed, and
 * kept in CI logs: the user puts the password back, or sets NICEEVAL_STORE).
 */
export function storeWords(store: string | undefined): string[] {
  if (store === undefined) return [];
  return ["--store", shellWord(isPostgresUrl(store) ? redactUrl(store) : store)];
}

/**
 * The command that continues a stored run in the store the user named: `--resume` (the default)
 * or `--retry-errors`.
 */
export function resumeCommand(
  runId: string,
  store: string | undefined,
  mode: "resume" | "retry-errors" = "resume",
): string {
  return [`niceeval run --${mode}`, runId.slice(0, 8), ...storeWords(store)].join(" ");
}
