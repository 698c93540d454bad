import type { LoadError } from "./summary.js";

/** A run's load errors told apart: files that failed to load, and evals left out of files that loaded. */
export interface LoadTroubles {
  /** Errors of files that failed to load (none of their evals ran). */
  failed: readonly LoadError[];
  /** How many files those are. */
  files: number;
  /** Errors of evals left out of files that loaded (the others of those files ran). */
  leftOut: readonly LoadError[];
  /** How many evals those left out. */
  evals: number;
}

/** {@link LoadTroubles} of a run's load errors. */
export function loadTroubles(errors: readonly LoadError[]): LoadTroubles {
  const failed = errors.filter((error) => error.leftOut === undefined);
  const leftOut = errors.filter((error) => error.leftOut !== undefined);
  return {
    failed,
    files: new Set(failed.map((error) => error.file)).size,
    leftOut,
    evals: leftOut.reduce((count, error) => count + (error.leftOut?.length ?? 0), 0),
  };
}
