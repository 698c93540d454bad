import { realNow, setTimeout } from "../clock.js";
import { NiceevalError } from "../errors.js";

/**
 * `NICEEVAL_STORE_OUTAGE_MS` as the process started with it (the tests of an outage shorten it),
 * else 60 s. Read once, as this module loads: code under test that sets it changes nothing.
 */
const setOutageMs = Number(process.env.NICEEVAL_STORE_OUTAGE_MS);
const startOutageMs =
  Number.isInteger(setOutageMs) && setOutageMs >= 1 && setOutageMs <= 2 ** 31 - 1
    ? setOutageMs
    : 60_000;

/**
 * How long a store that stopped answering is waited for: the longest a PostgreSQL query may go
 * unanswered, and how long a run goes on trying a write that could not reach its store.
 */
export function storeOutageMs(): number {
  return startOutageMs;
}

/** A limit as people read it: "60 s", "2 minutes". */
export function shownOutage(ms: number): string {
  if (ms % 60_000 === 0) return ms === 60_000 ? "1 minute" : `${ms / 60_000} minutes`;
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** A write that did not reach the store (a server down, restarting, ending connections, silent). */
export function unreachableStore(error: unknown): boolean {
  return error instanceof NiceevalError && error.code === "STORE_UNREACHABLE";
}

/** What {@link writeThroughOutage} tells while it waits, and what ends its wait early. */
export interface OutageHooks {
  /** The first try failed for a store that could not be reached: the write is tried again. */
  onOutage?: ((error: unknown) => void) | undefined;
  /** A write tried again after an outage went through. */
  onBack?: (() => void) | undefined;
  /**
   * Subscribes to the run's stop signals (Ctrl-C): one that comes during an outage ends the wait,
   * the write failing as at the limit. The listener returns false: the run hears it too.
   */
  stopSignals?: ((listener: (signal: string) => boolean) => () => void) | undefined;
  /** The wait for the store ended for this signal. */
  onStopped?: ((signal: string) => void) | undefined;
}

/** What a race with a stop signal gives when the signal came first. */
const STOPPED = Symbol("stopped");

/**
 * Do `write`, and while it fails for a store that cannot be reached, do it again (after 0.25 s,
 * doubling to 2 s) until `outageMs` have passed since the first failure, or until a stop signal
 * comes (`hooks.stopSignals`); then its last error is thrown. A write is one transaction, so one
 * that failed left nothing to undo.
 */
export async function writeThroughOutage(
  write: () => Promise<void>,
  outageMs: number,
  hooks: OutageHooks,
): Promise<void> {
  let since: number | undefined;
  const stop = new StopWait(hooks);
  try {
    for (let pause = 250; ; pause = Math.min(2 * pause, 2000)) {
      try {
        if ((await stop.race(write())) === STOPPED) throw stop.lastError;
        if (since !== undefined) hooks.onBack?.();
        return;
      } catch (error) {
        if (!unreachableStore(error) || stop.signal !== undefined) throw error;
        stop.lastError = error;
        if (since === undefined) {
          since = realNow();
          hooks.onOutage?.(error);
          stop.listen();
        }
        if (realNow() - since + pause > outageMs) throw error;
        const paused = new Promise<void>((resolve) => setTimeout(resolve, pause));
        if ((await stop.race(paused)) === STOPPED) throw error;
      }
    }
  } finally {
    stop.dispose();
  }
}

/** The stop signals an outage's wait listens to, from its first failure on. */
class StopWait {
  signal: string | undefined;
  lastError: unknown;
  private stopped: Promise<typeof STOPPED> | undefined;
  private unsubscribe = () => {};

  constructor(private readonly hooks: OutageHooks) {}

  listen(): void {
    const subscribe = this.hooks.stopSignals;
    if (!subscribe) return;
    this.stopped = new Promise((resolve) => {
      this.unsubscribe = subscribe((signal) => {
        if (this.signal === undefined) {
          this.signal = signal;
          this.hooks.onStopped?.(signal);
          resolve(STOPPED);
        }
        return false;
      });
    });
  }

  /** `pending`, or STOPPED when a stop signal comes first (a write left behind may fail later: unheard). */
  race<T>(pending: Promise<T>): Promise<T | typeof STOPPED> {
    if (!this.stopped) return pending;
    pending.catch(() => {});
    return Promise.race([pending, this.stopped]);
  }

  dispose(): void {
    this.unsubscribe();
  }
}
