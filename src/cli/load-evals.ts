import type { Executor } from "../runner/executor.js";
import type { SupervisedExecutor } from "../supervisor/executor.js";
import { childEntries } from "../supervisor/remote-evals.js";
import { endLeftProcessesAtExit } from "./left-processes.js";
import { loadEvalFiles } from "./load.js";

/** An executor that may run the evals in an eval process of its own (a supervised one). */
export interface EvalsExecutor extends Executor {
  childEvals?: SupervisedExecutor["childEvals"] | undefined;
  readCases?: SupervisedExecutor["readCases"] | undefined;
}

/**
 * A command's evals, loaded where `executor` runs them. Supervised, the eval process imports the
 * files (one whose top-level code never ends hangs it, killed after `waitMs`, --hang-timeout) and
 * this process only holds what it describes: their top-level code runs once, there. Otherwise
 * they are imported here.
 *
 * @example
 * const { entries, errors } = await loadEvals(executor, files, cwd, 60_000);
 */
export async function loadEvals(
  executor: EvalsExecutor,
  files: readonly string[],
  cwd: string,
  waitMs: number,
) {
  if ("readCases" in executor && executor.childEvals && executor.readCases)
    return childEntries(await executor.childEvals(), executor.readCases, waitMs);
  endLeftProcessesAtExit();
  return loadEvalFiles(files, cwd, { waitMs });
}
