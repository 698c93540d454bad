/** One slot held by a call; release it exactly once. */
export interface SchedulerTicket {
  readonly startedAt: number;
  release(): void;
}

/**
 * Per-endpoint admission control: a concurrency cap that halves when the endpoint says
 * "too many requests" and grows by one per window of successes (AIMD), plus an endpoint-wide
 * pause when it asks for one (Retry-After).
 */
export class EndpointScheduler {
  private limit: number;
  private active = 0;
  private pausedUntil = 0;
  private lastDecreaseAt = Number.NEGATIVE_INFINITY;
  private readonly waiters: (() => void)[] = [];
  private pauseTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private maxConcurrency: number) {
    this.limit = maxConcurrency;
  }

  /** The current concurrency limit (for reports and tests). */
  get currentLimit(): number {
    return Math.max(1, Math.floor(this.limit));
  }

  /** Change the cap (configureJudges); the adaptive limit never exceeds it. */
  setMaxConcurrency(max: number): void {
    this.maxConcurrency = max;
    this.limit = Math.min(this.limit, max);
    this.wake();
  }

  /** Wait for a slot (and for any pause to end). */
  async acquire(signal?: AbortSignal): Promise<SchedulerTicket> {
    for (;;) {
      signal?.throwIfAborted();
      if (Date.now() >= this.pausedUntil && this.active < this.currentLimit) {
        this.active++;
        let released = false;
        return {
          startedAt: performance.now(),
          release: () => {
            if (released) return;
            released = true;
            this.active--;
            this.wake();
          },
        };
      }
      await this.waitTurn(signal);
    }
  }

  /** A call succeeded: grow by about one slot per window of successes. */
  onSuccess(): void {
    const before = this.currentLimit;
    this.limit = Math.min(this.maxConcurrency, this.limit + 1 / this.limit);
    if (this.currentLimit > before) this.wake();
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

  private waitTurn(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const index = this.waiters.indexOf(wake);
        if (index !== -1) this.waiters.splice(index, 1);
        reject(signal?.reason);
      };
      const wake = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      this.waiters.push(wake);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  private armPauseTimer(): void {
    clearTimeout(this.pauseTimer);
    this.pauseTimer = setTimeout(
      () => {
        this.pauseTimer = undefined;
        this.wake();
      },
      Math.max(1, this.pausedUntil - Date.now() + 1),
    );
  }

  private wake(): void {
    if (Date.now() < this.pausedUntil) {
      // Woken during a pause (a release): the pause timer wakes the queue when it ends.
      if (this.pauseTimer === undefined) this.armPauseTimer();
      return;
    }
    let free = this.currentLimit - this.active;
    while (free-- > 0 && this.waiters.length > 0) this.waiters.shift()?.();
  }
}
