import { inProcessExecutor } from "../runner/executor.js";
import { type RunError, type SupervisedExecutor, supervisedExecutor } from "./executor.js";
import { interruptible } from "./interruptible.js";

export { DEFAULT_HANG_TIMEOUT_MS, type RunError, supervisedExecutor } from "./executor.js";
export { interruptible } from "./interruptible.js";
export { DEFAULT_GRACE_MS, guardRun, type RunGuard } from "./run-guard.js";

/** Options of {@link runExecutor}. */
export interface RunExecutorOptions {
  /** Attempts in a supervised child process (true) or in this one. */
  supervise: boolean;
  files: readonly string[];
  cwd: string;
  judgeCache: boolean;
  hangTimeoutMs: number;
  stdoutFd: number;
  stderr: (text: string) => void;
}

/** What a supervised executor has and an in-process one may not. */
type Supervised = "close" | "runAhead" | "childEvals" | "readCases";

/**
 * The executor of `niceeval run`: supervised by default (its child starts loading the eval
 * files at once; this process runs the evals it describes, without importing the files), else
 * in process; both can be interrupted.
 */
export function runExecutor(options: RunExecutorOptions): Omit<
  SupervisedExecutor,
  Supervised | "takeFinished"
> & {
  [K in Supervised]?: SupervisedExecutor[K] | undefined;
} {
  if (!options.supervise)
    return { ...interruptible(inProcessExecutor), runErrors: [] as readonly RunError[] };
  return supervisedExecutor({ ...options, start: true });
}
