import { readFileSync } from "node:fs";

/**
 * What to say when this process ran out of file descriptors (EMFILE): Node reads a module's
 * imports at once, so loading niceeval (or an eval file's imports) opens dozens of files together,
 * and a low `ulimit -n` fails it. Undefined for any other error.
 */
export function openFilesAdvice(error: unknown): string | undefined {
  if ((error as { code?: unknown } | null)?.code !== "EMFILE") return undefined;
  const limit = openFileLimit();
  return `niceeval: too many open files (${(error as Error).message}): this process may have ${limit === undefined ? "only a few" : `at most ${limit}`} files open at once (ulimit -n), and loading niceeval and the eval files opens many together; raise the limit (ulimit -n 4096) and run again`;
}

/** The soft limit on open files, from /proc where there is one. */
function openFileLimit(): number | undefined {
  try {
    const line = /^Max open files\s+(\d+)/m.exec(readFileSync("/proc/self/limits", "utf8"));
    return line ? Number(line[1]) : undefined;
  } catch {
    return undefined;
  }
}
