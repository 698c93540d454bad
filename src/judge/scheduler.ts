/** One slot held by a call; release it exactly once. */
export interface SchedulerTicket {
  readonly startedAt: number;
  release(): void;
}

interface Waiter {
  grant: (ticket: SchedulerTicket) => void;
}

/**
 * Per-endpoint admission control: a concurrency cap that halves when the endpoint says
 * "too many requests" and grows by one per window of successes (AIMD), plus an endpoint-wide
 * pause when it asks for one (Retry-After). Slots are handed to waiters in order; retries of
 * calls already admitted once go first.
 */
export class EndpointScheduler {
  private limit: number;
  private active = 0;
  private pausedUntil = 0;
  private lastDecreaseAt = Number.NEGATIVE_INFINITY;
  private readonly waiters: Waiter[] = [];
  private pauseTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private maxConcurrency: number) {
    this.limit = maxConcurrency;
  }

  /** The current concurrency limit (for reports and tests). */
  get currentLimit(): number {
    return Math.max(1, Math.floor(this.limit));
  }

  /** Calls waiting for a slot. */
  get queued(): number {
    return this.waiters.length;
  }

  /** Change the cap (configureJudges); the adaptive limit never exceeds it. */
  setMaxConcurrency(max: number): void {
    this.maxConcurrency = max;
    this.limit = Math.min(this.limit, max);
    this.dispatch();
  }

  /** Wait for a slot (and for any pause to end). `retry` puts the call ahead of first tries. */
  acquire(signal?: AbortSignal, options: { retry?: boolean } = {}): Promise<SchedulerTicket> {
    signal?.throwIfAborted();
    if (this.waiters.length === 0 && this.canAdmit()) return Promise.resolve(this.admit());
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

  /** A call succeeded: grow by about one slot per window of successes. */
  onSuccess(): void {
    this.limit = Math.min(this.maxConcurrency, this.limit + 1 / this.limit);
    this.dispatch();
  }

  /** A call started at `ticket.startedAt` was rate limited: halve once per congestion event. */
  onRateLimited(ticket: SchedulerTicket): void {
    if (ticket.startedAt < this.lastDecreaseAt) return;
    this.lastDecreaseAt = performance.now();
    this.limit = Math.max(1, this.limit / 2);
  }

  /** Hold every call to this endpoint for `ms` (the endpoint asked us to wait). */
  pause(ms: number): void {
    const until = Date.now() + ms;
    if (until <= this.pausedUntil) return;
    this.pausedUntil = until;
    this.armPauseTimer();
  }

  private canAdmit(): boolean {
    return Date.now() >= this.pausedUntil && this.active < this.currentLimit;
  }

  private admit(): SchedulerTicket {
    this.active++;
    let released = false;
    return {
      startedAt: performance.now(),
      release: () => {
        if (released) return;
        released = true;
        this.active--;
        this.dispatch();
      },
    };
  }

  // Hand free slots to waiters in queue order; during a pause the pause timer does it later.
  private dispatch(): void {
    if (Date.now() < this.pausedUntil) {
      if (this.pauseTimer === undefined && this.waiters.length > 0) this.armPauseTimer();
      return;
    }
    while (this.waiters.length > 0 && this.canAdmit()) this.waiters.shift()?.grant(this.admit());
  }

  private armPauseTimer(): void {
    clearTimeout(this.pauseTimer);
    this.pauseTimer = setTimeout(
      () => {
        this.pauseTimer = undefined;
        this.dispatch();
      },
      Math.max(1, this.pausedUntil - Date.now() + 1),
    );
  }
}
