import { plural } from "../plural.js";
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

/**
 * What failed a run besides its attempts, in the words `niceeval runs` and the viewer's runs page
 * give it: files that did not load, evals left out, errors outside every attempt. Empty when none.
 */
export function runTroubles(run: {
  loadErrors?: readonly LoadError[] | undefined;
  runErrors?: readonly string[] | undefined;
}): string[] {
  const out: string[] = [];
  const load = loadTroubles(run.loadErrors ?? []);
  if (load.files > 0) out.push(`${plural(load.files, "file")} failed to load`);
  if (load.evals > 0) out.push(`${plural(load.evals, "eval")} left out`);
  const outside = run.runErrors?.length ?? 0;
  if (outside > 0) out.push(`${plural(outside, "error")} outside any case`);
  return out;
}
