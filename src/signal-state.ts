// niceeval asks its own signals whether they aborted, and why, through AbortSignal's getters as
// they were when this module loaded. Code under test may replace them on AbortSignal.prototype
// (runner/globals.ts puts them back after its attempt and errors it); until then, a getter that
// throws or lies must not crash the engine between attempts nor leave a run waiting for good.

const getter = (key: "aborted" | "reason") =>
  Object.getOwnPropertyDescriptor(AbortSignal.prototype, key)?.get;
// Bound to `call` now, so neither a replaced Function.prototype.call nor a replaced getter reaches them.
const abortedOf = Function.prototype.call.bind(getter("aborted")!) as (signal: unknown) => boolean;
const reasonOf = Function.prototype.call.bind(getter("reason")!) as (signal: unknown) => unknown;

/** `signal.aborted`, read with the original getter (an object that is no AbortSignal: its own). */
export function isAborted(signal: AbortSignal): boolean {
  try {
    return abortedOf(signal);
  } catch {
    return signal.aborted;
  }
}

/** `signal.reason`, read as {@link isAborted} reads `aborted`. */
export function abortReason(signal: AbortSignal): unknown {
  try {
    return reasonOf(signal);
  } catch {
    return signal.reason;
  }
}
