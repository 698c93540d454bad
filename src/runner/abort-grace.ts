import { clearTimeout, setTimeout } from "../clock.js";
import { errorMessage } from "../errors.js";
import { abortReason, isAborted } from "../signal-state.js";
import { interruptible } from "../supervisor/interruptible.js";
import type { Executor } from "./executor.js";

/** How long attempts in flight may go on once a run's signal aborts, in process (2 s). */
export const DEFAULT_ABORT_GRACE_MS = 2_000;

/**
 * Run `inner` so that once `signal` aborts, attempts still in flight `graceMs` later are given up
 * on, errored as interrupted with the abort's reason: code under test that ignores its signal
 * (a promise nothing settles) cannot keep the run waiting for its time limit. Its work is
 * abandoned, not stopped: nothing can stop it in process. `dispose` when the run ends.
 */
export function abortGraced(
  inner: Executor,
  signal: AbortSignal,
  graceMs: number,
): { executor: Executor; dispose(): void } {
  const executor = interruptible(inner);
  const grace = abortGrace(signal, graceMs);
  void grace.over.then((message) => executor.interrupt(message));
  return { executor, dispose: grace.dispose };
}

/**
 * `over` resolves with why work still under way is given up on, `graceMs` after `signal` aborts
 * (never, if it does not before `dispose`).
 */
export function abortGrace(
  signal: AbortSignal,
  graceMs: number,
): { over: Promise<string>; dispose(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort = () => {};
  const over = new Promise<string>((resolve) => {
    onAbort = () => {
      timer = setTimeout(() => resolve(abortedMessage(signal, graceMs)), graceMs);
    };
  });
  if (isAborted(signal)) onAbort();
  else signal.addEventListener("abort", onAbort, { once: true });
  return {
    over,
    dispose() {
      signal.removeEventListener("abort", onAbort);
      clearTimeout(timer);
    },
  };
}

/** Why an attempt was given up on after the run's signal aborted. */
function abortedMessage(signal: AbortSignal, graceMs: number): string {
  const why = abortReason(signal);
  const reason = why === undefined ? "" : ` (${errorMessage(why)})`;
  return `interrupted: the run's signal was aborted${reason} and the attempt did not finish within ${graceMs} ms of it, so it was abandoned; make the target, adapter or scorer stop when its \`signal\` aborts, or raise abortGraceMs`;
}
