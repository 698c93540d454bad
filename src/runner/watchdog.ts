import { NiceevalError } from "../errors.js";
import { type RunOrigin, timeoutOptions } from "../eval/run-origin.js";
import { DEFAULT_CASE_TIMEOUT_MS, MAX_TIMER_MS } from "../eval/timeout.js";

/**
 * The last-resort limit on a whole attempt of a CLI run: `--timeout` + 1 s, else 10 minutes.
 * `NICEEVAL_LAST_RESORT_MS` replaces the 10 minutes (the tests of that limit use it); the engine's
 * own default, for code that calls it, is its `caseTimeoutMs` option.
 */
export function lastResortMs(timeoutMs: number | undefined): number {
  if (timeoutMs !== undefined) return timeoutMs + 1000;
  // Read as given or not at all: a value no timer can take leaves the 10 minutes.
  const set = Number(process.env.NICEEVAL_LAST_RESORT_MS);
  return Number.isInteger(set) && set >= 1 && set <= MAX_TIMER_MS - 1000
    ? set
    : DEFAULT_CASE_TIMEOUT_MS;
}

/** A limit as people read it: "10 minutes", "90 s", "300 ms". */
function shown(ms: number): string {
  if (ms % 60_000 === 0) return ms === 60_000 ? "1 minute" : `${ms / 60_000} minutes`;
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/**
 * A last-resort limit on whole attempts, with one timer for the run rather than one per
 * attempt (cheaper at 100,000 cases). Its timer also keeps the process alive while an attempt
 * is pending, so a promise that never settles is reported as a timeout, not lost in a silent exit.
 */
export class Watchdog {
  private readonly deadlines = new Map<number, { at: number; reject: (error: Error) => void }>();
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly periodMs: number;
  private lastSweep = performance.now();
  private nextKey = 0;

  constructor(
    private readonly limitMs: number,
    /** Where the run came from: its timeout error names the options there. */
    private readonly origin?: RunOrigin,
  ) {
    this.periodMs = Math.max(5, Math.min(1000, limitMs / 4));
    this.timer = setInterval(() => this.sweep(), this.periodMs);
  }

  /** Run `work`, rejecting with a timeout error if it outlives the limit. */
  guard<T>(work: () => Promise<T>): Promise<T> {
    return this.guardFromStart((start) => {
      start();
      return work();
    });
  }

  /**
   * Like {@link guard}, but the limit counts from when `work` calls `start` (an attempt that waits
   * in an executor's queue first); until then nothing can time out. Later calls are ignored.
   */
  guardFromStart<T>(work: (start: () => void) => Promise<T>): Promise<T> {
    const key = this.nextKey++;
    return new Promise<T>((resolve, reject) => {
      // Armed once: not again after it settled, nor after its deadline passed.
      let armed = false;
      const start = () => {
        if (armed) return;
        armed = true;
        this.deadlines.set(key, { at: performance.now() + this.limitMs, reject });
      };
      // Ended past its deadline before a sweep saw it (its thread held, or between sweeps): it
      // is cut off all the same, as a sweep would have.
      const settle = (): boolean => {
        armed = true;
        const deadline = this.deadlines.get(key);
        this.deadlines.delete(key);
        return deadline !== undefined && performance.now() >= deadline.at;
      };
      work(start).then(
        (value) => {
          if (settle()) reject(this.timeoutError(performance.now()));
          else resolve(value);
        },
        (error: unknown) => {
          if (settle()) reject(this.timeoutError(performance.now()));
          else reject(error);
        },
      );
    });
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private sweep(): void {
    const now = performance.now();
    for (const [key, deadline] of this.deadlines) {
      if (now < deadline.at) continue;
      this.deadlines.delete(key);
      deadline.reject(this.timeoutError(now));
    }
    this.lastSweep = now;
  }

  /**
   * The error of an attempt past the limit at `now`; when no sweep ran for two periods, the thread
   * was held (synchronous code), which is why it was not cut off earlier.
   */
  private timeoutError(now: number): NiceevalError {
    const limit = `the last-resort limit of ${shown(this.limitMs)}`;
    const held = now - this.lastSweep > 2 * this.periodMs;
    return new NiceevalError(
      "TIMEOUT",
      held
        ? `the attempt did not settle within ${limit}: it held the thread past that limit, so it could not be stopped earlier (synchronous code cannot be timed out: a limit stops only code that yields); make it yield (await between its steps), or set a tighter limit with ${timeoutOptions(this.origin)}`
        : `the attempt did not settle within ${limit}; set a tighter one with ${timeoutOptions(this.origin)}`,
    );
  }
}
