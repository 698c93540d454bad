import { clearTimeout, realNow, setImmediate, setTimeout } from "../clock.js";
import { NiceevalError } from "../errors.js";
import { abortReason, isAborted } from "../signal-state.js";
import { aloneSince, attempts } from "./in-flight.js";
import { type RunOrigin, timeoutOptions } from "./run-origin.js";

/** Longest delay a Node timer can arm (about 24.8 days); a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Default limit on one attempt when neither the run nor the eval sets one (10 minutes). */
export const DEFAULT_CASE_TIMEOUT_MS = 10 * 60 * 1000;

/** A delay a timer can arm as given: negative and NaN become 0, past the maximum the maximum. */
export const clampTimer = (ms: number): number =>
  ms > 0 ? Math.min(Math.ceil(ms), MAX_TIMER_MS) : 0;

/**
 * Check a timeout given through the API: a whole number of ms from 1 to `max` (the runner keeps
 * 1 s above the longest for its last-resort timer). Throws a USAGE error naming `option`.
 */
export function checkTimeoutMs(
  option: string,
  value: unknown,
  max = MAX_TIMER_MS - 1000,
): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > max) {
    throw new NiceevalError(
      "USAGE",
      `${option} must be a whole number of milliseconds from 1 to ${max}, got ${givenText(value)}`,
    );
  }
  return value;
}

/** A value as an option's refusal shows it: a string quoted, so "4" is told from 4. */
export function givenText(value: unknown): string {
  if (typeof value === "string")
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "object" && value !== null)
    return Array.isArray(value) ? "an array" : "an object";
  return String(value);
}

/** {@link givenText}, saying "(a string)" after a quoted string: `"10" (a string)` where a number was due. */
export const givenTyped = (value: unknown): string =>
  typeof value === "string" ? `${givenText(value)} (a string)` : givenText(value);

/** Most trials of a case in one run (the CLI's `--trials`, a suite's and a run's `trials`). */
export const MAX_TRIALS = 10_000;

/** Check a whole-number option (concurrency, trials) given through the API. */
export function checkWholeNumber(
  option: string,
  value: unknown,
  min: number,
  max: number,
): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new NiceevalError(
      "USAGE",
      `${option} must be a whole number from ${min} to ${max}, got ${givenText(value)}`,
    );
  }
  return value;
}

/** Run `work`, failing with a clear error if it takes longer than `ms` (no limit when undefined). */
export async function withTimeout<T>(
  work: () => T | Promise<T>,
  ms: number | undefined,
  what: string,
): Promise<T> {
  if (ms === undefined || ms <= 0 || !Number.isFinite(ms)) return work();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new NiceevalError(
            "TIMEOUT",
            `${what} timed out after ${ms} ms; raise the timeout or make it faster`,
          ),
        ),
      clampTimer(ms),
    );
  });
  try {
    return await Promise.race([Promise.resolve().then(work), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Why work that ended past its limit was not stopped at it: a timer fires only when the thread is
 * free, and the attempt held it (synchronous code) until `heldMs` into it.
 */
export function heldThread(heldMs: number): string {
  return `the attempt held the thread past the limit, to ${Math.round(heldMs)} ms, so it could not be stopped earlier (synchronous code cannot be timed out: a limit stops only code that yields)`;
}

/** The deadline whose signal this is, so code handed only the signal can ask it (see {@link limitPassed}). */
const deadlines = new WeakMap<AbortSignal, Deadline>();

/**
 * Whether `signal` was aborted by its attempt's time limit, that limit's deadline first
 * expiring when its time came while the attempt held the thread ({@link Deadline.passed}).
 */
export function limitPassed(signal: AbortSignal): boolean {
  if (deadlines.get(signal)?.passed()) return true;
  return (
    isAborted(signal) && (abortReason(signal) as { code?: unknown } | null)?.code === "TIMEOUT"
  );
}

/** How far into its attempt the thread was held past the limit of `signal`'s deadline, if it was. */
export function heldPastLimit(signal: AbortSignal): number | undefined {
  return deadlines.get(signal)?.heldMs;
}

/**
 * One attempt's time limit, shared by everything the attempt runs (target or adapter, scorers,
 * judge calls): its `signal` aborts when the limit passes (or when the run's signal aborts),
 * and {@link Deadline.race} lets work that finished before the limit keep its result.
 */
export class Deadline {
  readonly #controller = new AbortController();
  readonly #onExpire = new Set<() => void>();
  readonly #timer: NodeJS.Timeout | undefined;
  readonly #forward: () => void;
  readonly #startedAt = realNow();
  #expired = false;
  /** Expired, its parts not yet answered: what finished before then is still kept. */
  #expiring = false;
  #disposed = false;
  #heldMs: number | undefined;

  constructor(
    private readonly parent: AbortSignal,
    /** The limit in ms; undefined is none. */
    readonly ms: number | undefined,
    /** Where the run came from: its timeout error names the options there. */
    private readonly origin?: RunOrigin,
  ) {
    if (ms !== undefined && ms > 0 && Number.isFinite(ms)) {
      this.#timer = setTimeout(() => this.#timeUp(), clampTimer(ms));
    }
    // Once the run's signal aborts, the attempt may be abandoned after a grace (review.run,
    // runner/abort-grace.ts), its work going on unstopped: from then its limit still fires while
    // the process lives, but no longer keeps it alive (what waits for the attempt holds it then).
    this.#forward = () => {
      this.#timer?.unref();
      this.#controller.abort(abortReason(parent));
    };
    if (isAborted(parent)) this.#forward();
    else parent.addEventListener("abort", this.#forward, { once: true });
    deadlines.set(this.#controller.signal, this);
  }

  /** Aborts at the limit with a TIMEOUT error, or with the run's reason. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get expired(): boolean {
    return this.#expired;
  }

  /**
   * Whether the limit has passed, asked as a part of the attempt ends. Its timer fires only once
   * the thread is free, so a part can end past the limit before it fired: the thread was held.
   * When no other attempt was in flight since the limit came, nothing but this attempt can have
   * held it, and the deadline expires now, as the timer would have. Beside other attempts (in
   * process, side by side) which of them held it is not known: none is blamed, and the timer
   * decides (see {@link Deadline.race}).
   */
  passed(): boolean {
    if (this.#expired || this.#timer === undefined) return this.#expired;
    const ms = realNow() - this.#startedAt;
    if (ms >= this.ms! && aloneSince(attempts, this.#startedAt + this.ms!)) this.#heldTo(ms);
    return this.#expired;
  }

  /**
   * Run `work`'s synchronous part; when the limit came while it ran (it held the thread, so the
   * timer could not fire), the deadline expires as soon as it returns: that is this attempt's
   * own code, whatever else is in flight.
   */
  #heldBy<T>(work: () => T): T {
    const before = realNow() - this.#startedAt;
    const out = work();
    if (before < this.ms! && !this.#expired) {
      const after = realNow() - this.#startedAt;
      if (after >= this.ms!) this.#heldTo(after, true);
    }
    return out;
  }

  /** Expire as the timer would have, the attempt having held the thread to `ms` into it. */
  #heldTo(ms: number, queued = false): void {
    this.#heldMs = ms;
    this.#expire(queued);
  }

  /** How far into the attempt the thread was held past the limit, when that is how it expired. */
  get heldMs(): number | undefined {
    return this.#heldMs;
  }

  /** Abort everything the attempt runs (a failed create, for instance). */
  abort(reason: unknown): void {
    this.#controller.abort(reason);
  }

  /**
   * The error of work stopped by the limit: "`what` timed out after N ms". `waiting`: what the
   * work was waiting on when the limit came (a judge call), said in place of "make it faster".
   */
  timeoutError(what: string, waiting?: { waitingOn: string; advice: string }): NiceevalError {
    const options = timeoutOptions(this.origin);
    const raise = `raise ${options}, or make it faster`;
    return new NiceevalError(
      "TIMEOUT",
      waiting
        ? `${what} timed out after ${this.ms} ms ${waiting.waitingOn}; raise ${options}${waiting.advice}`
        : this.#heldMs === undefined
          ? `${what} timed out after ${this.ms} ms; ${raise}`
          : `${what} timed out after ${this.ms} ms: ${heldThread(this.#heldMs)}; make it yield (await between its steps), ${raise}`,
    );
  }

  /**
   * `work`'s result, or `onTimeout()`'s (which may throw) when the limit passes first, or passed
   * while the attempt held the thread (`work` ended past the limit, before the timer could fire:
   * {@link Deadline.passed}). `work`'s synchronous part runs now, as it does without a limit: it
   * is the attempt's synchronous part, where what the attempt replaces and keeps until it ends
   * (fake timers, a fetch mock) is held for it (runner/globals.ts, holdGlobals).
   */
  race<T>(work: () => T | Promise<T>, onTimeout: () => T): Promise<T> {
    if (this.#timer === undefined) return startedNow(work);
    if (this.#expired) return Promise.resolve().then(onTimeout);
    // Whether `work` finished before the limit, recorded in the very microtask that has its
    // value (its settle handler below comes later, behind what else was queued): a part that
    // finished keeps what it gave when another part's start holds the thread past the limit.
    let kept = false;
    const finished = () => {
      const late = this.#expired;
      if (!late) this.passed();
      kept = late ? this.#expiring : !this.#expired;
    };
    const settled = startedNow(() => {
      const late = this.#expired;
      const out = this.#heldBy(work);
      // Its own start held the thread past the limit: it is the one timed out.
      if (!late && this.#expired) return out;
      if (isThenable(out)) Promise.resolve(out).then(finished, finished);
      else finished();
      return out;
    });
    return new Promise<T>((resolve, reject) => {
      let answered = false;
      const expire = () => {
        if (kept || answered) return;
        answered = true;
        settled.catch(() => undefined);
        try {
          resolve(onTimeout());
        } catch (error) {
          reject(error);
        }
      };
      this.#onExpire.add(expire);
      // Ended past the limit, having held the thread: `expire` answers, and what `work` gave is
      // too late.
      const settle = (answer: () => void) => {
        if (!kept) this.passed();
        this.#onExpire.delete(expire);
        if (!kept && this.#expired) expire();
        else answer();
      };
      settled.then(
        (value) => settle(() => resolve(value)),
        (error: unknown) => settle(() => reject(error)),
      );
    });
  }

  /** Clear the timer and stop following the run's signal. */
  dispose(): void {
    this.#disposed = true;
    clearTimeout(this.#timer);
    this.parent.removeEventListener("abort", this.#forward);
  }

  /**
   * The timer fired. Beside other attempts it may fire late, behind one that held the thread:
   * what this attempt waited for may have come meanwhile, its callback queued behind the timer.
   * The limit then expires once the callbacks ready now have run (setImmediate: after the
   * timers and I/O due), so an attempt that only waited for the thread keeps its result (its
   * part ends first, and {@link Deadline.passed} does not blame it).
   */
  #timeUp(): void {
    if (this.#expired) return;
    if (aloneSince(attempts, this.#startedAt + this.ms!)) {
      this.#expire();
      return;
    }
    setImmediate(() => {
      if (!this.#expired && !this.#disposed) this.#expire();
    });
  }

  /**
   * `queued`: a part's synchronous start held the thread past the limit (`#heldBy`). Parts that
   * finished before it, whose value is already queued (a microtask behind that start), are
   * answered first and keep it; the others are timed out once those have run.
   */
  #expire(queued = false): void {
    this.#expired = true;
    this.#controller.abort(this.timeoutError("the attempt"));
    if (!queued) {
      this.#answerExpired();
      return;
    }
    this.#expiring = true;
    queueMicrotask(() => {
      this.#expiring = false;
      this.#answerExpired();
    });
  }

  #answerExpired(): void {
    for (const expire of [...this.#onExpire]) expire();
    this.#onExpire.clear();
  }
}

/** `work` called now, its value or what it throws as a promise. */
function startedNow<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error);
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}
