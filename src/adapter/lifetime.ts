import { AuthoringError } from "../errors.js";

/**
 * Whether an attempt's test(t) is still running. Evidence recorded after it settled could never
 * reach the record (a late gate would be lost and a failing attempt would pass), so every call
 * on `t` that records evidence refuses once the test has ended.
 */
export class TestLifetime {
  #ended = false;

  /** `attempt` names it in messages, e.g. `eval "late-gate", case "default"`. */
  constructor(readonly attempt: string) {}

  /** test(t) settled: what it made is all the record gets. */
  end(): void {
    this.#ended = true;
  }

  /**
   * Throws an AuthoringError when the test has ended. `call` names what was called ("t.check(...)");
   * the error's stack starts at the caller of `api`, the function the author called.
   */
  assertRunning(call: string, api: (...args: never[]) => unknown): void {
    if (!this.#ended) return;
    const error = new AuthoringError(
      `${call} in ${this.attempt} was called after test(t) had already ended, so what it records would be lost; await the work that calls it (e.g. \`await promise\`) before test returns`,
    );
    Error.captureStackTrace?.(error, api);
    Object.defineProperty(error, LATE_CALL, { value: true });
    throw error;
  }
}

/** Marks the error of a call made after its test ended (the same mark in any copy of niceeval). */
const LATE_CALL = Symbol.for("niceeval.late-call");

/**
 * Whether `error` is a call made after its test ended: it names its own attempt, which had
 * finished, so no attempt running when it is thrown can own it.
 */
export function isLateCall(error: unknown): boolean {
  return typeof error === "object" && error !== null && LATE_CALL in error;
}
