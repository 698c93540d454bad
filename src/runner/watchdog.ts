import { clearInterval, realNow, setInterval } from "../clock.js";
import { NiceevalError } from "../errors.js";
import { aloneSince, flightEnded, flightStarted, flightsOf } from "../eval/in-flight.js";
import { type RunOrigin, timeoutOptions } from "../eval/run-origin.js";
import { DEFAULT_CASE_TIMEOUT_MS, MAX_TIMER_MS } from "../eval/timeout.js";

/**
 * `NICEEVAL_LAST_RESORT_MS` as the process started with it, read as given or not at all (a value
 * no timer can take leaves the 10 minutes). Read once, as this module loads, before any eval file:
 * code under test that sets the variable (a dotenv file loaded with `override`) would otherwise
 * change the limit of every attempt after it (in an eval process, its own too).
 */
const setLimitMs = Number(process.env.NICEEVAL_LAST_RESORT_MS);
const startLimitMs =
  Number.isInteger(setLimitMs) && setLimitMs >= 1 && setLimitMs <= MAX_TIMER_MS - 1000
    ? setLimitMs
    : undefined;

/**
 * The last-resort limit on a whole attempt of a CLI run: `--timeout` + 1 s, else 10 minutes.
 * `NICEEVAL_LAST_RESORT_MS` replaces the 10 minutes (the tests of that limit use it); the engine's
 * own default, for code that calls it, is its `caseTimeoutMs` option.
 */
export function lastResortMs(timeoutMs: number | undefined): number {
  if (timeoutMs !== undefined) return timeoutMs + 1000;
  return startLimitMs ?? DEFAULT_CASE_TIMEOUT_MS;
}

/** A limit as people read it: "10 minutes", "90 s", "300 ms". */
function shown(ms: number): string {
  if (ms % 60_000 === 0) return ms === 60_000 ? "1 minute" : `${ms / 60_000} minutes`;
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** The attempts every watchdog of this process guards, armed and not yet settled or cut off. */
const guarded = flightsOf("watchdog");

/**
 * A last-resort limit on whole attempts, with one timer for the run rather than one per
 * attempt (cheaper at 100,000 cases). Its timer also keeps the process alive while an attempt
 * is pending, so a promise that never settles is reported as a timeout, not lost in a silent exit.
 */
export class Watchdog {
  private readonly deadlines = new Map<number, { at: number; reject: (error: Error) => void }>();
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly periodMs: number;
  private lastSweep = realNow();
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
        this.deadlines.set(key, { at: realNow() + this.limitMs, reject });
        flightStarted(guarded);
      };
      // Ended past its deadline before a sweep saw it (the thread held, or between sweeps): when
      // no other attempt was in flight since the deadline, only its own code can have held the
      // thread, and it is cut off all the same, as a sweep would have. Beside others, which of
      // them held it is not known: it keeps what it gave, as it would had it ended first.
      const settle = (): boolean => {
        armed = true;
        const deadline = this.deadlines.get(key);
        if (deadline === undefined) return false;
        this.deadlines.delete(key);
        const late = realNow() >= deadline.at && aloneSince(guarded, deadline.at);
        flightEnded(guarded);
        return late;
      };
      work(start).then(
        (value) => {
          if (settle()) reject(this.timeoutError(this.heldSinceSweep()));
          else resolve(value);
        },
        (error: unknown) => {
          if (settle()) reject(this.timeoutError(this.heldSinceSweep()));
          else reject(error);
        },
      );
    });
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private sweep(): void {
    const now = realNow();
    const held = this.heldSinceSweep(now);
    for (const [key, deadline] of this.deadlines) {
      if (now < deadline.at) continue;
      // Alone in flight since its deadline, while the thread was held: by its own code.
      const own = held && aloneSince(guarded, deadline.at);
      // Its deadline came while the thread was held beside other attempts: it may only have
      // waited for the thread, its continuation queued behind this sweep. It has until the next
      // sweep to settle, and its settling then decides, as for an attempt that ended first.
      if (held && !own && deadline.at > this.lastSweep) continue;
      this.deadlines.delete(key);
      // Given up on, as the supervisor gives up on an attempt whose record came: what its code
      // still does is no attempt's.
      flightEnded(guarded);
      deadline.reject(this.timeoutError(own));
    }
    this.lastSweep = now;
  }

  /** Whether no sweep ran for two periods: the thread was held since the last one. */
  private heldSinceSweep(now = realNow()): boolean {
    return now - this.lastSweep > 2 * this.periodMs;
  }

  /**
   * The error of an attempt past the limit; `held`: its own code held the thread past it (it was
   * alone in flight meanwhile), which is why it was not cut off earlier.
   */
  private timeoutError(held: boolean): NiceevalError {
    const limit = `the last-resort limit of ${shown(this.limitMs)}`;
    return new NiceevalError(
      "TIMEOUT",
      held
        ? `the attempt did not settle within ${limit}: it held the thread past that limit, so it could not be stopped earlier (synchronous code cannot be timed out: a limit stops only code that yields); make it yield (await between its steps), or set a tighter limit with ${timeoutOptions(this.origin)}`
        : `the attempt did not settle within ${limit}; set a tighter one with ${timeoutOptions(this.origin)}`,
    );
  }
}
