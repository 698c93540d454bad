import type { RunManifest } from "./types.js";

/**
 * What finishes an imported run that did not finish, as a clause; undefined for a run made in
 * this store (`niceeval run --resume` finishes that). An import is finished where the run was
 * made: its export again when the file was cut short, else the run resumed there, then exported.
 */
export function importedRunAdvice(run: RunManifest): string | undefined {
  if (!run.imported) return undefined;
  const id = run.runId.slice(0, 8);
  const exportIt = `\`niceeval export ${id} --ndjson <file>\``;
  return run.imported.cutShort
    ? `it was imported from an export that ended before its end line (cut short): export it again where it ran (${exportIt}) and import that`
    : `it was imported, and did not finish where it ran: finish it there (\`niceeval run --resume ${id}\`), export it again (${exportIt}) and import that`;
}
