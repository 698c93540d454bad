/** One slot held by a call; release it exactly once. */
export interface SchedulerTicket {
  readonly startedAt: number;
  /** The call took the last free slot: a success then says the limit may grow. */
  readonly atLimit: boolean;
  release(): void;
}

/** What an endpoint's scheduler is doing (for reports, benchmarks and tests). */
export interface SchedulerState {
  /** Calls allowed in flight now. */
  limit: number;
  /** The highest limit reached so far. */
  peakLimit: number;
  /** Paced admissions per second, or undefined while the endpoint has not pushed back. */
  ratePerSecond: number | undefined;
  /** How many times the endpoint's push-back shrank the limit and the pace. */
  decreases: number;
  active: number;
  queued: number;
}

interface Waiter {
  grant: (ticket: SchedulerTicket) => void;
}

/** The adaptive limit starts here (or at the cap, when that is lower). */
export const INITIAL_CONCURRENCY = 8;
// Multiplicative decrease of the in-flight limit on push-back.
const LIMIT_DECREASE = 0.7;
// On push-back the pace drops to this share of the rate the endpoint actually served.
const RATE_DECREASE = 0.95;
// Pace growth per success: quick back up to the rate last served, then about 5 % a second.
const RATE_STEP_BELOW_CEILING = 1;
const RATE_STEP_ABOVE_CEILING = 0.05;
// Never slower than this: an endpoint that pushes back is slowed, never stopped.
const MIN_RATE = 1;
// The served rate is measured over the last second (the window of most provider limits).
const RATE_WINDOW_MS = 1000;
// One push-back event per Retry-After (at most this long): a window's tail of 429s counts once.
const MAX_HOLD_MS = 1000;

/**
 * Per-endpoint admission control in two parts.
 * - An in-flight limit (AIMD): it starts at {@link INITIAL_CONCURRENCY}, grows by about one
 *   slot per limit's worth of successes while calls wait for slots, and shrinks by 30 % when
 *   the endpoint pushes back (429, 503, 529), once per push-back event, never above the cap.
 * - A pace, set at the first push-back: the rate the endpoint served in the last second, a
 *   little less; it grows again while calls wait for it. A Retry-After is honoured by the call
 *   that received it; the endpoint itself is slowed, never frozen.
 * Slots are handed to waiters in order; retries of calls already admitted once go first.
 */
export class EndpointScheduler {
  private limit: number;
  private peak: number;
  private active = 0;
  private rate: number | undefined;
  private ceiling: number | undefined;
  private nextAdmitAt = 0;
  private lastDecreaseAt = Number.NEGATIVE_INFINITY;
  private holdUntil = Number.NEGATIVE_INFINITY;
  private decreases = 0;
  private readonly admitted: number[] = [];
  private readonly served: number[] = [];
  private readonly waiters: Waiter[] = [];
  private paceTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private maxConcurrency: number,
    initialConcurrency = INITIAL_CONCURRENCY,
  ) {
    this.limit = Math.min(maxConcurrency, initialConcurrency);
    this.peak = this.limit;
  }

  /** The current in-flight limit. */
  get currentLimit(): number {
    return Math.max(1, Math.floor(this.limit));
  }

  /** Calls waiting for a slot. */
  get queued(): number {
    return this.waiters.length;
  }

  /** A snapshot of the limit, the pace and the queue. */
  state(): SchedulerState {
    return {
      limit: this.currentLimit,
      peakLimit: Math.max(1, Math.floor(this.peak)),
      ratePerSecond: this.rate,
      decreases: this.decreases,
      active: this.active,
      queued: this.waiters.length,
    };
  }

  /** Change the cap (configureJudges); the adaptive limit never exceeds it. */
  setMaxConcurrency(max: number): void {
    this.maxConcurrency = max;
    this.limit = Math.min(this.limit, max);
    this.dispatch();
  }

  /** Wait for a slot (and for the pace). `retry` puts the call ahead of first tries. */
  acquire(signal?: AbortSignal, options: { retry?: boolean } = {}): Promise<SchedulerTicket> {
    signal?.throwIfAborted();
    if (this.waiters.length === 0 && this.canAdmit(performance.now()))
      return Promise.resolve(this.admit());
    return new Promise<SchedulerTicket>((resolve, reject) => {
      const waiter: Waiter = {
        grant: (ticket) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(ticket);
        },
      };
      const onAbort = () => {
        const index = this.waiters.indexOf(waiter);
        if (index !== -1) this.waiters.splice(index, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      if (options.retry) this.waiters.unshift(waiter);
      else this.waiters.push(waiter);
      this.dispatch();
    });
  }

  /** A call succeeded: the limit grows if the call needed the last slot, the pace if calls wait for it. */
  onSuccess(ticket?: SchedulerTicket): void {
    const now = performance.now();
    this.served.push(now);
    prune(this.served, now);
    if (ticket?.atLimit) {
      this.limit = Math.min(this.maxConcurrency, this.limit + 1 / this.limit);
      this.peak = Math.max(this.peak, this.limit);
    }
    // The pace grows only while it is what holds calls back: calls wait, slots are free, and
    // admissions keep up with it (a client short of CPU must not talk itself into a faster pace).
    if (
      this.rate !== undefined &&
      this.waiters.length > 0 &&
      this.active < this.currentLimit &&
      this.admittedPerSecond(now) >= 0.9 * this.rate
    ) {
      const below = this.ceiling === undefined || this.rate < this.ceiling;
      this.rate += below ? RATE_STEP_BELOW_CEILING : RATE_STEP_ABOVE_CEILING;
    }
    this.dispatch();
  }

  /**
   * The endpoint pushed back on a call started at `ticket.startedAt`: shrink the limit and set
   * the pace from the rate it served, once per event (calls started before the last decrease,
   * and push-backs within the Retry-After of the last one, are the same event).
   */
  onRateLimited(ticket: SchedulerTicket, retryAfterMs?: number): void {
    const now = performance.now();
    if (ticket.startedAt < this.lastDecreaseAt || now < this.holdUntil) return;
    this.lastDecreaseAt = now;
    this.holdUntil = now + Math.min(MAX_HOLD_MS, Math.max(0, retryAfterMs ?? 0));
    this.decreases++;
    this.limit = Math.max(1, this.limit * LIMIT_DECREASE);
    prune(this.served, now);
    const served = this.served.length * (1000 / RATE_WINDOW_MS);
    if (served > 0) {
      this.ceiling = served;
      this.rate = Math.min(this.rate ?? served, served) * RATE_DECREASE;
    } else {
      // Nothing got through for a second: halve whatever pace we were sending at.
      this.rate = (this.rate ?? this.admittedPerSecond(now)) / 2;
    }
    this.rate = Math.max(MIN_RATE, this.rate);
  }

  private admittedPerSecond(now: number): number {
    prune(this.admitted, now);
    return this.admitted.length * (1000 / RATE_WINDOW_MS);
  }

  private canAdmit(now: number): boolean {
    return this.active < this.currentLimit && (this.rate === undefined || now >= this.nextAdmitAt);
  }

  private admit(): SchedulerTicket {
    const now = performance.now();
    this.active++;
    if (this.rate !== undefined) {
      const interval = 1000 / this.rate;
      // A timer that fires late may catch up by one interval, never burst beyond it.
      this.nextAdmitAt = Math.max(this.nextAdmitAt, now - interval) + interval;
    }
    this.admitted.push(now);
    prune(this.admitted, now);
    let released = false;
    return {
      startedAt: now,
      atLimit: this.active >= this.currentLimit,
      release: () => {
        if (released) return;
        released = true;
        this.active--;
        this.dispatch();
      },
    };
  }

  // Hand free slots to waiters in queue order; when the pace holds them, a timer comes back.
  private dispatch(): void {
    const now = performance.now();
    while (this.waiters.length > 0 && this.canAdmit(now)) this.waiters.shift()?.grant(this.admit());
    if (
      this.waiters.length > 0 &&
      this.paceTimer === undefined &&
      this.active < this.currentLimit &&
      this.rate !== undefined
    ) {
      this.paceTimer = setTimeout(
        () => {
          this.paceTimer = undefined;
          this.dispatch();
        },
        Math.max(0, this.nextAdmitAt - now),
      );
    }
  }
}

// Drop the times that fell out of the measuring window (oldest first).
function prune(times: number[], now: number): void {
  let drop = 0;
  while (drop < times.length && (times[drop] ?? now) <= now - RATE_WINDOW_MS) drop++;
  if (drop > 0) times.splice(0, drop);
}
