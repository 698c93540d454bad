import { realNow, setTimeout } from "../clock.js";

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
  /**
   * Requests a second the endpoint allows, as learned from what it accepted in the second
   * before a refused call; undefined while it has not pushed back.
   */
  allowedPerSecond: number | undefined;
  /** How many times the endpoint's push-back shrank the limit and the pace. */
  decreases: number;
  active: number;
  queued: number;
}

interface Waiter {
  grant: (ticket: SchedulerTicket) => void;
  retry: boolean;
}

/** The adaptive limit starts here (or at the cap, when that is lower). */
export const INITIAL_CONCURRENCY = 8;
// Multiplicative decrease of the in-flight limit on push-back ...
const LIMIT_DECREASE = 0.7;
// ... but never below what the new pace needs at the observed latency (Little's law), with room.
const LIMIT_HEADROOM = 1.5;
// The pace settles this far under the rate the endpoint was seen to allow.
const PLATEAU = 0.98;
// Pace growth per success: quick up to the plateau; past it (a probe for more) about 10 % a
// second while the allowance is not confirmed, 1 % a second past a confirmed one.
const RATE_STEP_QUICK = 1;
const RATE_STEP_SEARCH = 0.1;
const RATE_STEP_PROBE = 0.01;
// Two push-backs in a row that measure the allowance within this share confirm it. (One alone
// may have looked at less than a second of traffic, or at a ramp.)
const CONFIRM_SHARE = 0.05;
// A probe above the allowance that is refused costs its call the Retry-After; the pace probes
// only while the calls waiting would keep it busy this many Retry-Afters (of at least a second).
const PROBE_BACKLOG_RETRY_AFTERS = 2;
// Never slower than this: an endpoint that pushes back is slowed, never stopped.
const MIN_RATE = 1;
// Rates are measured over a second (the window of most provider limits).
const RATE_WINDOW_MS = 1000;
// How far behind the pace admissions may catch up: the plateau's margin of a second.
const CATCH_UP_MS = (1 - PLATEAU) * RATE_WINDOW_MS;
// Start times are kept this long: a push-back looks at the second before its call started.
const HISTORY_MS = 2 * RATE_WINDOW_MS;
// One push-back event per Retry-After (at most this long): a window's tail of 429s counts once.
const MAX_HOLD_MS = 1000;
// While the endpoint refuses even the slowed pace it is probed one call at a time. A probe not
// refused within two refusal round trips reopens the pace; the first probe goes this long
// after the refusal that closed the endpoint ...
const PROBE_MIN_MS = 10;
const PROBE_ROUND_TRIPS = 2;
// ... each next one twice as long after a refused probe, at most this share of the Retry-After
// (or of a second): a spent window costs the endpoint about ten refused probes, not a second of
// refused calls, and reopens at most this late.
const PROBE_MAX_SHARE = 1 / 8;
// Refusals of calls sent at the slowed pace, before any of them got through, that show the
// endpoint refuses everything for now (one alone may be a sliding window's edge).
const CLOSE_AFTER_REFUSALS = 3;
// Weight of each new success in the running mean of the latency.
const LATENCY_WEIGHT = 0.1;

/**
 * Per-endpoint admission control in two parts.
 * - An in-flight limit (AIMD): it starts at {@link INITIAL_CONCURRENCY} and, until the endpoint
 *   first pushes back, grows by one slot per success of a call that needed the last slot (a slow
 *   start: it doubles about once per latency); afterwards by about one slot per limit's worth
 *   of such successes. It shrinks by 30 % when the endpoint pushes back (429, 503, 529), once
 *   per push-back event, but not below what the pace needs at the observed latency; never
 *   above the cap.
 * - A pace, set at the first push-back from what the endpoint was seen to allow: the requests
 *   that started in the second before the first refused one, less the refused among them.
 *   Against a limit of N a second (a fixed or a sliding window) that is about N once the client
 *   asks for more. The pace drops to 2 % under it and climbs back there quickly while calls
 *   wait for it. Above it the pace looks for more only while the calls waiting outlast what a
 *   refused probe costs (two Retry-Afters): about 10 % a second until two push-backs in a row
 *   measured the same allowance, then 1 % a second. A push-back while under the allowance
 *   measures it again, lower. A push-back after less than a second of calls measures nothing
 *   (what was accepted is all that was sent): the pace is then half the rate the calls went at,
 *   halved again while refusals keep coming among accepted calls. While the allowance is
 *   unknown, the limit and the pace grow as in slow start, doubling about once per round trip.
 * A Retry-After is honoured by the call that received it (a whole-second one is an upper bound:
 * the window may reset sooner); the endpoint itself is slowed, not frozen. Only when calls sent
 * at the slowed pace are refused too (a fixed window is spent) does it go quiet: one probe at a
 * time, ever further apart (at most an eighth of the Retry-After), a first try rather than a
 * call refused before; the first probe not refused within two refusal round trips resumes the
 * pace.
 * Slots are handed to waiters in order; retries of calls already admitted once go first.
 */
export class EndpointScheduler {
  private limit: number;
  private peak: number;
  private active = 0;
  private rate: number | undefined;
  private allowed: number | undefined;
  private confirmed = false;
  private latencyMs: number | undefined;
  private nextAdmitAt = 0;
  // Since when the endpoint refuses even calls sent at the slowed pace (undefined: it accepts),
  // the last probe sent since then, when it counts as accepted unless refused, whether it was
  // refused, the gap before the next one, and the push-back event the closing belongs to.
  private closedAt: number | undefined;
  private probeAt: number | undefined;
  private probePassAt = Number.POSITIVE_INFINITY;
  private probeRefused = false;
  private probeGapMs = PROBE_MIN_MS;
  private probeMaxGapMs = PROBE_MIN_MS;
  private closedInEvent = Number.NEGATIVE_INFINITY;
  // Of the calls sent since the last decrease or reopening: how many were refused, and
  // whether one got through.
  private countFrom = Number.NEGATIVE_INFINITY;
  private refusedSince = 0;
  private acceptedSince = false;
  private refusalMs: number | undefined;
  private retryAfterMs = 0;
  private lastDecreaseAt = Number.NEGATIVE_INFINITY;
  private holdUntil = Number.NEGATIVE_INFINITY;
  private decreases = 0;
  // When the client's current stretch of traffic began (a window with no call in flight starts
  // another) and when a call was last admitted or released: a push-back that saw less than a
  // window of traffic cannot measure the allowance (see onRateLimited).
  private trafficFrom = Number.NEGATIVE_INFINITY;
  private lastBusyAt = Number.NEGATIVE_INFINITY;
  // Start times of the requests sent (in order) and of those refused (in report order).
  private readonly admitted: number[] = [];
  private readonly refused: number[] = [];
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
      allowedPerSecond: this.allowed,
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
    if (this.waiters.length === 0 && this.closedAt === undefined && this.canAdmit(realNow()))
      return Promise.resolve(this.admit());
    return new Promise<SchedulerTicket>((resolve, reject) => {
      const waiter: Waiter = {
        retry: options.retry ?? false,
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
    const now = realNow();
    // A probe got through: the endpoint accepts again, back to the pace.
    if (this.closedAt !== undefined && ticket && ticket.startedAt >= this.closedAt)
      this.reopen(now);
    if (ticket) {
      if (ticket.startedAt >= this.countFrom) this.acceptedSince = true;
      const latency = now - ticket.startedAt;
      this.latencyMs =
        this.latencyMs === undefined
          ? latency
          : this.latencyMs + LATENCY_WEIGHT * (latency - this.latencyMs);
    }
    if (ticket?.atLimit) {
      // Slow start while the allowance is unknown (until a push-back measures it, after a full
      // second of calls), then about one slot per limit's worth.
      this.limit = Math.min(
        this.maxConcurrency,
        this.limit + (this.allowed === undefined ? 1 : 1 / this.limit),
      );
      this.peak = Math.max(this.peak, this.limit);
    }
    // The pace grows only while it is what holds calls back: calls wait, slots are free, and
    // admissions keep up with it (a client short of CPU must not talk itself into a faster pace).
    if (
      this.rate !== undefined &&
      this.waiters.length > 0 &&
      this.active < this.currentLimit &&
      this.keepsUp(this.rate, now)
    ) {
      const plateau =
        this.allowed === undefined ? Number.POSITIVE_INFINITY : this.allowed * PLATEAU;
      const backlogMs = (this.waiters.length / this.rate) * 1000;
      if (this.rate < plateau) this.rate = Math.min(plateau, this.rate + this.quickStep());
      else if (backlogMs > PROBE_BACKLOG_RETRY_AFTERS * Math.max(1000, this.retryAfterMs))
        this.rate += this.confirmed ? RATE_STEP_PROBE : RATE_STEP_SEARCH;
    }
    this.dispatch();
  }

  /**
   * The endpoint pushed back on a call started at `ticket.startedAt`: learn what it allows,
   * shrink the limit and set the pace just under the allowance, once per event (calls started
   * before the last decrease, and push-backs within the Retry-After of the last one, are the
   * same event).
   */
  onRateLimited(ticket: SchedulerTicket, retryAfterMs?: number): void {
    const now = realNow();
    this.refused.push(ticket.startedAt);
    prune(this.admitted, now, HISTORY_MS);
    pruneUnordered(this.refused, now, HISTORY_MS);
    const refusal = now - ticket.startedAt;
    this.refusalMs =
      this.refusalMs === undefined
        ? refusal
        : this.refusalMs + LATENCY_WEIGHT * (refusal - this.refusalMs);
    // Sent before the last decrease: part of the event that caused it.
    if (ticket.startedAt < this.lastDecreaseAt) return;
    const maxGap = Math.max(PROBE_MIN_MS, (retryAfterMs ?? 1000) * PROBE_MAX_SHARE);
    if (this.closedAt !== undefined) {
      // A refused probe: the next one waits twice as long.
      if (this.probeAt !== undefined && ticket.startedAt >= this.probeAt) {
        this.probeRefused = true;
        this.probeGapMs = Math.min(2 * this.probeGapMs, maxGap);
        this.nextAdmitAt = Math.max(this.nextAdmitAt, now + this.probeGapMs);
      }
      return;
    }
    if (now < this.holdUntil) {
      // Sent at the slowed pace and refused all the same, again and again. None accepted: the
      // endpoint refuses everything for now (a fixed window is spent); probe it one call at a
      // time until one gets through. Some accepted: the endpoint is at its allowance, which is
      // what a measured pace is for; a pace guessed without a measure is too fast, and this is
      // a new event that halves it.
      if (ticket.startedAt >= this.countFrom) this.refusedSince++;
      if (this.refusedSince < CLOSE_AFTER_REFUSALS) return;
      if (!this.acceptedSince) {
        this.close(now, maxGap);
        return;
      }
      if (this.allowed !== undefined) return;
    }
    this.decrease(ticket, now, retryAfterMs);
  }

  /** The endpoint refuses even calls sent at the slowed pace: probe it one call at a time. */
  private close(now: number, maxGap: number): void {
    const again = this.closedInEvent === this.lastDecreaseAt;
    this.closedAt = now;
    this.closedInEvent = this.lastDecreaseAt;
    this.probeAt = undefined;
    this.probeRefused = false;
    this.probeGapMs = again
      ? Math.min(2 * this.probeGapMs, maxGap)
      : Math.min(maxGap, PROBE_MIN_MS);
    this.probeMaxGapMs = maxGap;
    this.nextAdmitAt = Math.max(this.nextAdmitAt, now + this.probeGapMs);
  }

  /** A new push-back event: measure the allowance, set the pace under it, shrink the limit. */
  private decrease(ticket: SchedulerTicket, now: number, retryAfterMs: number | undefined): void {
    this.lastDecreaseAt = now;
    this.countSince(now);
    this.retryAfterMs = Math.max(0, retryAfterMs ?? 0);
    this.holdUntil = now + Math.min(MAX_HOLD_MS, Math.max(0, retryAfterMs ?? 0));
    this.decreases++;
    // What the endpoint accepted in the second before this call: the requests started then,
    // less the refused among them (calls still in flight count as accepted).
    const from = ticket.startedAt - RATE_WINDOW_MS;
    const accepted =
      countSorted(this.admitted, from, ticket.startedAt) -
      countIn(this.refused, from, ticket.startedAt);
    const previous = this.allowed;
    // Less than a window of traffic before the refused call: what was accepted is all the client
    // sent, not what the endpoint allows (a passing refusal of the fifth call would pin the pace
    // at four a second).
    const thin = ticket.startedAt - this.trafficFrom < RATE_WINDOW_MS;
    if (accepted > 0 && !thin) {
      const measured = accepted * (1000 / RATE_WINDOW_MS);
      let allowed = measured;
      let confirmed = false;
      if (previous !== undefined && Math.abs(measured - previous) <= CONFIRM_SHARE * previous) {
        // Two measures in a row about the same confirm the allowance, at the lower (the safer);
        // but refused while looking for more above a confirmed allowance, at about that, it is
        // where it was (a second's count is only as steady as the traffic, and against fixed
        // windows it may straddle two).
        const probing = (this.rate ?? 0) > previous * PLATEAU;
        allowed = this.confirmed && probing ? previous : Math.min(previous, measured);
        confirmed = true;
      }
      this.allowed = allowed;
      this.confirmed = confirmed;
      this.rate = Math.min(this.rate ?? allowed, allowed) * PLATEAU;
    } else {
      // Nothing got through for a second, or the client sent for less than a second: halve
      // whatever pace we were sending at (nothing is known of the allowance, so the pace may
      // grow past that quickly); against a spent window the next push-back, a window later,
      // measures.
      this.rate =
        (this.rate ?? (thin ? this.sendingPerSecond(now) : this.admittedPerSecond(now))) / 2;
      // Unknown, not the halved pace: calls that get through then grow the pace quickly, and the
      // next push-back measures the allowance (a burst of refusals at a run's start must not pin
      // the pace at half of what was sent before it, for the rest of the run).
      this.allowed = undefined;
      this.confirmed = false;
    }
    this.rate = Math.max(MIN_RATE, this.rate);
    const needed =
      this.latencyMs === undefined ? 1 : (LIMIT_HEADROOM * this.rate * this.latencyMs) / 1000;
    this.limit = Math.max(1, Math.min(this.limit, Math.max(this.limit * LIMIT_DECREASE, needed)));
  }

  private probeRoundTripsMs(): number {
    return Math.max(PROBE_MIN_MS, PROBE_ROUND_TRIPS * (this.refusalMs ?? 0));
  }

  private countSince(now: number): void {
    this.countFrom = now;
    this.refusedSince = 0;
    this.acceptedSince = false;
  }

  private reopen(now: number): void {
    this.closedAt = undefined;
    this.countSince(now);
    this.probeAt = undefined;
    this.nextAdmitAt = Math.min(this.nextAdmitAt, now);
  }

  /**
   * How much a success adds to a pace under the plateau: one call a second; while the allowance
   * is unknown (a guessed pace), as much as doubles the pace per round trip, as slow start does
   * the limit (a pace guessed from a passing refusal must not take seconds to recover).
   */
  private quickStep(): number {
    if (this.allowed !== undefined || this.latencyMs === undefined) return RATE_STEP_QUICK;
    return Math.max(RATE_STEP_QUICK, 1000 / Math.max(1, this.latencyMs));
  }

  /**
   * Whether admissions keep up with the pace: over the last second, or for a guessed pace (which
   * grows by round trips, faster than a second's count follows) over its last few intervals.
   */
  private keepsUp(rate: number, now: number): boolean {
    if (this.allowed !== undefined) return this.admittedPerSecond(now) >= 0.9 * rate;
    const spanMs = Math.max(50, (4 * 1000) / rate);
    const recent = this.admitted.length - firstIndex(this.admitted, (time) => time > now - spanMs);
    return (recent * 1000) / spanMs >= 0.9 * rate;
  }

  /** Calls admitted per second since the traffic began (less than a window ago). */
  private sendingPerSecond(now: number): number {
    const since =
      this.admitted.length - firstIndex(this.admitted, (time) => time >= this.trafficFrom);
    return (since * 1000) / Math.max(1, now - this.trafficFrom);
  }

  private admittedPerSecond(now: number): number {
    prune(this.admitted, now, HISTORY_MS);
    return countSorted(this.admitted, now - RATE_WINDOW_MS, now) * (1000 / RATE_WINDOW_MS);
  }

  /** Whether admissions wait for a time: a pace, or the probes of a closed endpoint. */
  private get timed(): boolean {
    return this.rate !== undefined || this.closedAt !== undefined;
  }

  private canAdmit(now: number): boolean {
    return this.active < this.currentLimit && (!this.timed || now >= this.nextAdmitAt);
  }

  private admit(): SchedulerTicket {
    const now = realNow();
    if (this.active === 0 && now - this.lastBusyAt > RATE_WINDOW_MS) this.trafficFrom = now;
    this.lastBusyAt = now;
    this.active++;
    if (this.closedAt !== undefined) {
      this.probeAt = now;
      this.probeRefused = false;
      this.probePassAt = now + Math.min(this.probeMaxGapMs, this.probeRoundTripsMs());
      this.nextAdmitAt = this.probePassAt;
    } else if (this.rate !== undefined) {
      const interval = 1000 / this.rate;
      // Admissions late for a busy event loop are caught up on, up to the plateau's margin of
      // a second (at least one interval): however late they come, no second then holds more
      // than the allowance.
      this.nextAdmitAt =
        Math.max(this.nextAdmitAt, now - Math.max(interval, CATCH_UP_MS)) + interval;
    }
    this.admitted.push(now);
    prune(this.admitted, now, HISTORY_MS);
    let released = false;
    return {
      startedAt: now,
      atLimit: this.active >= this.currentLimit,
      release: () => {
        if (released) return;
        released = true;
        this.active--;
        this.lastBusyAt = realNow();
        this.dispatch();
      },
    };
  }

  // Hand free slots to waiters in queue order; when the pace holds them, a timer comes back.
  private dispatch(): void {
    const now = realNow();
    // The last probe was not refused in a few refusal round trips: the endpoint accepts again.
    if (
      this.closedAt !== undefined &&
      this.probeAt !== undefined &&
      !this.probeRefused &&
      now >= this.probePassAt
    )
      this.reopen(now);
    while (this.waiters.length > 0 && this.canAdmit(now)) {
      // A probe of a closed endpoint is likely refused: it goes to a first try, if one waits,
      // so that a call refused before does not wait out one more Retry-After for it.
      const index =
        this.closedAt === undefined
          ? 0
          : Math.max(
              0,
              this.waiters.findIndex((w) => !w.retry),
            );
      this.waiters.splice(index, 1)[0]?.grant(this.admit());
    }
    if (
      this.waiters.length > 0 &&
      this.paceTimer === undefined &&
      this.active < this.currentLimit &&
      this.timed
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

// Drop the times older than `keepMs` (oldest first).
function prune(times: number[], now: number, keepMs: number): void {
  let drop = 0;
  while (drop < times.length && (times[drop] ?? now) <= now - keepMs) drop++;
  if (drop > 0) times.splice(0, drop);
}

// The same for times that are not in order.
function pruneUnordered(times: number[], now: number, keepMs: number): void {
  let kept = 0;
  for (const time of times) if (time > now - keepMs) times[kept++] = time;
  times.length = kept;
}

// How many of the times fall in (from, to).
function countIn(times: readonly number[], from: number, to: number): number {
  let count = 0;
  for (const time of times) if (time > from && time < to) count++;
  return count;
}

// The same for times in ascending order, by bisection (it runs on every success).
function countSorted(times: readonly number[], from: number, to: number): number {
  return firstIndex(times, (time) => time >= to) - firstIndex(times, (time) => time > from);
}

// The first index whose time passes `test` (which, once true, stays true), or the length.
function firstIndex(times: readonly number[], test: (time: number) => boolean): number {
  let low = 0;
  let high = times.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (test(times[middle] ?? Number.POSITIVE_INFINITY)) high = middle;
    else low = middle + 1;
  }
  return low;
}
