/**
 * Whether a failed write was the store refusing what was written (a constraint it enforces, a
 * value of the wrong type or size, a field its checks refuse), not a store that could not be
 * reached or stayed locked: written again, the same value is refused again, so waiting for the
 * store is no way on.
 */
export function refusedWrite(error: unknown): boolean {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  if (typeof code !== "string") return false;
  // A manifest, record or end the store's own checks refused (manifest-fields.ts, attempt-fields.ts).
  if (code === "USAGE") return true;
  if (code.startsWith("SQLITE_CONSTRAINT")) return true;
  if (code === "SQLITE_MISMATCH" || code === "SQLITE_TOOBIG") return true;
  // PostgreSQL's SQLSTATE classes 22 (data exception) and 23 (integrity constraint violation).
  return /^2[23][0-9A-Z]{3}$/.test(code);
}

/**
 * Whether a failed write found the store's file damaged (`STORE_CORRUPT`, or SQLite's own
 * SQLITE_CORRUPT or SQLITE_NOTADB): no later write to it succeeds, and no wait helps, so a run
 * stops starting cases and `--resume` is no way on.
 */
export function damagedStore(error: unknown): boolean {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === "string" && /^(STORE_CORRUPT$|SQLITE_(CORRUPT|NOTADB))/.test(code);
}

/**
 * Whether a failed write found the store's file deleted or replaced while the run wrote to it
 * (`STORE_MOVED`, sqlite/moved-file.ts): its path takes no more of the run, which goes on, if at
 * all, in the copy the error names.
 */
export function movedStore(error: unknown): boolean {
  return (error as { code?: unknown } | null | undefined)?.code === "STORE_MOVED";
}
