import { isPostgresUrl } from "../store/postgres/connection.js";

/** A word as a POSIX shell reads it back: as it is when it is safe, else in single quotes. */
export function shellWord(word: string): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The `--store` of a command niceeval suggests, as the user gave it to this one: nothing for the
 * default store, nor for a PostgreSQL URL (it may hold a password, which a suggestion would
 * print: the user repeats it, or sets NICEEVAL_STORE).
 */
export function storeWords(store: string | undefined): string[] {
  return store !== undefined && !isPostgresUrl(store) ? ["--store", shellWord(store)] : [];
}

/** The command that continues a stored run in the store the user named. */
export function resumeCommand(runId: string, store: string | undefined): string {
  return ["niceeval run --resume", runId.slice(0, 8), ...storeWords(store)].join(" ");
}
