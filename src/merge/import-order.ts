import type { RunManifest, RunStatus, StoredRun } from "../store/types.js";
import { effectiveStatus } from "../store/writer.js";

/**
 * Where a run stood when it was exported or as a store holds it. Of two points of one run, the
 * later one has been continued more often (`--resume`, `--retry-errors`: each adds a mark to the
 * manifest's `resumes`), or as often but ended where the other had not (a run goes from running
 * to ended only once between two continuations), or ended later, or holds more attempts.
 */
export interface RunPoint {
  resumes: number;
  /** Ended: finished, interrupted or crashed; not a run still running, nor an export cut short. */
  ended: boolean;
  endedAt?: string | undefined;
  attempts: number;
  status: RunStatus | "cut short";
}

/** The point of an export: its manifest and how it ends (undefined: cut short). */
export function filePoint(
  manifest: RunManifest,
  end: { status: RunStatus; endedAt?: string | undefined } | undefined,
  attempts: number,
): RunPoint {
  return {
    resumes: manifest.resumes?.length ?? 0,
    ended: end !== undefined && end.status !== "running",
    endedAt: end?.endedAt,
    attempts,
    status: end?.status ?? "cut short",
  };
}

/** The point of a stored run; an import cut short (interrupted, with no end time) has not ended. */
export function storedPoint(run: StoredRun): RunPoint {
  const status = effectiveStatus(run);
  const cutShort = run.imported?.cutShort === true && run.endedAt === undefined;
  return {
    resumes: run.resumes?.length ?? 0,
    ended: status !== "running" && !(cutShort && status === "interrupted"),
    endedAt: run.endedAt,
    attempts: run.totals.attempts,
    status,
  };
}

/**
 * Why the export at `file` is older than the run the store holds, or undefined when it is not
 * (newer, or the same point: importing it again changes nothing).
 */
export function olderBecause(file: RunPoint, stored: RunPoint): string | undefined {
  const times = (n: number) => (n === 1 ? "once" : n === 2 ? "twice" : `${n} times`);
  if (file.resumes !== stored.resumes)
    return file.resumes < stored.resumes
      ? `the store's run was continued (--resume, --retry-errors) ${times(stored.resumes)}, the exported one ${file.resumes === 0 ? "never" : times(file.resumes)}`
      : undefined;
  if (file.ended !== stored.ended)
    return stored.ended
      ? `the store's run has ended (${stored.status}), the exported one had not (${file.status})`
      : undefined;
  if (file.endedAt !== stored.endedAt) {
    if (stored.endedAt === undefined) return undefined;
    if (file.endedAt === undefined || file.endedAt < stored.endedAt)
      return `the store's run ended at ${stored.endedAt}, the exported one ${file.endedAt === undefined ? `without an end time (${file.status})` : `at ${file.endedAt}`}`;
    return undefined;
  }
  if (file.attempts < stored.attempts)
    return `the store's run holds ${stored.attempts} attempts, the export ${file.attempts}`;
  return undefined;
}
