import { processWide } from "../process-wide.js";

// Taken as this module loads: code under test may replace them (the `domain` module does).
const hasCapture = process.hasUncaughtExceptionCaptureCallback.bind(process);
const setCapture = process.setUncaughtExceptionCaptureCallback.bind(process);

/**
 * An uncaught-exception capture callback (`process.setUncaughtExceptionCaptureCallback(fn)`) takes
 * every uncaught exception before any `'uncaughtException'` listener hears it: one that code under
 * test leaves installed swallows the uncaught errors of every attempt after it, and bypasses the
 * run's own handling of them (the eval process's, the run guard's). niceeval sets none itself, so
 * one found after an attempt is the code under test's, unless the host had one as the run started
 * (read with the watched globals, globals.ts): the host's is left alone. Process-wide, as two
 * copies of niceeval in one process share `process`.
 */
const state = processWide("runner.capture", () => ({
  /** The host had a callback when the globals were last read: none is removed. */
  host: undefined as boolean | undefined,
  /** An attempt in flight set the callback in its synchronous part: it is that attempt's to remove. */
  held: false,
}));

/** The globals are read (a run starts, or the first attempt outside any run): so is the host's. */
export function readHostCapture(): void {
  state.host = hasCapture();
  state.held = false;
}

/**
 * An attempt's synchronous part returned, and it goes on: a callback it set is its own until it
 * ends (set, awaited, removed in a `finally`), so it is left in place, and another attempt that
 * ends meanwhile neither removes it nor is errored for it. True when this attempt holds it.
 */
export function holdCapture(): boolean {
  if (state.held || (state.host ?? true) || !hasCapture()) return false;
  state.held = true;
  return true;
}

/**
 * Removes a callback the code under test left installed; true when there was one. A handful of
 * nanoseconds when there is none, the common case. `held`: the attempt ending held it
 * ({@link holdCapture}); one an attempt still in flight holds is left.
 */
export function removeCapture(held = false): boolean {
  if (held) state.held = false;
  if (!hasCapture()) return false;
  if ((state.host ?? true) || state.held) return false;
  try {
    setCapture(null);
  } catch {
    // Set by the `domain` module, which refuses: the attempt is errored all the same.
  }
  return true;
}

/** Why an attempt is errored when it left a capture callback installed. */
export function captureMessage(): string {
  return "the code under test set an uncaught-exception capture callback (process.setUncaughtExceptionCaptureCallback) and left it installed after this attempt (or one running beside it): it would swallow the uncaught errors of every later attempt, so niceeval removed it and the run goes on. Remove it before the attempt ends (`process.setUncaughtExceptionCaptureCallback(null)`, in a `finally`)";
}
