import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { callJudge } from "../../src/judge/call.js";
import type { JudgeChatRequest } from "../../src/judge/chat.js";
import { configureJudges } from "../../src/judge/config.js";
import { withJudgeLedger } from "../../src/judge/ledger.js";
import { schedulerFor } from "../../src/judge/retries.js";
import { EndpointScheduler, INITIAL_CONCURRENCY } from "../../src/judge/scheduler.js";
import { type FakeLlmServer, fake, startFakeLlmServer } from "../support/fake-llm-server.js";
import { isolateJudges } from "./judge-env.js";

// The scheduler reads performance.now() and sets timeouts: both on a fake clock. niceeval takes
// them from src/clock.ts, which code under test cannot fake; here they follow the globals.
vi.mock("../../src/clock.js", () => ({
  realNow: () => performance.now(),
  setTimeout: (...args: Parameters<typeof setTimeout>) => setTimeout(...args),
  clearTimeout: (timer: Parameters<typeof clearTimeout>[0]) => clearTimeout(timer),
  setImmediate: (...args: Parameters<typeof setImmediate>) => setImmediate(...args),
  realDateNow: () => Date.now(),
}));
const fakeClock = () => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });

/**
 * A call in flight for 1.1 s (released with no answer): the client has been sending for more
 * than a second, so a push-back after this measures the allowance (one after less traffic
 * cannot), and the call falls outside the second before any refusal.
 */
async function afterASecondOfTraffic(scheduler: EndpointScheduler): Promise<void> {
  const ticket = await scheduler.acquire();
  vi.advanceTimersByTime(1100);
  ticket.release();
}

describe("EndpointScheduler", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("admits at most the limit and lets the next in on release", async () => {
    const scheduler = new EndpointScheduler(2);
    const a = await scheduler.acquire();
    await scheduler.acquire();
    let third = false;
    const waiting = scheduler.acquire().then((ticket) => {
      third = true;
      return ticket;
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(third).toBe(false);
    a.release();
    await waiting;
    expect(third).toBe(true);
  });

  it("starts at the initial limit, below the cap", () => {
    expect(new EndpointScheduler(64).currentLimit).toBe(INITIAL_CONCURRENCY);
    expect(new EndpointScheduler(3).currentLimit).toBe(3);
  });

  it("grows only on successes of calls that needed the last slot, up to the cap", async () => {
    const scheduler = new EndpointScheduler(10, 2);
    const first = await scheduler.acquire();
    expect(first.atLimit).toBe(false);
    scheduler.onSuccess(first);
    first.release();
    expect(scheduler.currentLimit).toBe(2);
    for (let i = 0; i < 100; i++) {
      const held = [];
      for (let n = 1; n < scheduler.currentLimit; n++) held.push(await scheduler.acquire());
      const last = await scheduler.acquire();
      expect(last.atLimit).toBe(true);
      scheduler.onSuccess(last);
      for (const ticket of [...held, last]) ticket.release();
    }
    expect(scheduler.currentLimit).toBe(10);
    expect(scheduler.state().peakLimit).toBe(10);
  });

  it("shrinks by 30 % once per push-back event and paces just under what the endpoint accepted", async () => {
    fakeClock();
    const scheduler = new EndpointScheduler(64, 20);
    await afterASecondOfTraffic(scheduler);
    const served = await Promise.all(Array.from({ length: 20 }, () => scheduler.acquire()));
    vi.advanceTimersByTime(5);
    for (const ticket of served) {
      scheduler.onSuccess(ticket);
      ticket.release();
    }
    const before = scheduler.currentLimit;
    const tickets = await Promise.all([1, 2, 3].map(() => scheduler.acquire()));
    vi.advanceTimersByTime(1);
    for (const ticket of tickets) scheduler.onRateLimited(ticket);
    expect(scheduler.state()).toMatchObject({
      decreases: 1,
      limit: Math.floor(before * 0.7),
      allowedPerSecond: 20,
    });
    // 20 accepted in the second before: the pace is 2 % under 20 a second.
    expect(scheduler.state().ratePerSecond).toBeCloseTo(19.6, 5);
    // A call started after the decrease is a new event; one within its Retry-After is not.
    const later = await scheduler.acquire();
    vi.advanceTimersByTime(1);
    scheduler.onRateLimited(later, 60_000);
    const again = scheduler.acquire();
    await vi.advanceTimersByTimeAsync(100);
    scheduler.onRateLimited(await again, 60_000);
    expect(scheduler.state().decreases).toBe(2);
    for (const ticket of [...tickets, later, await again]) ticket.release();
  });

  it("learns what the endpoint allows from the calls it accepted in the second before the first refusal", async () => {
    fakeClock();
    const scheduler = new EndpointScheduler(64, 64);
    await afterASecondOfTraffic(scheduler);
    // 50 calls 10 ms apart (t = 0…490 from here), each answered in 5 ms.
    for (let i = 0; i < 50; i++) {
      const ticket = await scheduler.acquire();
      vi.advanceTimersByTime(5);
      scheduler.onSuccess(ticket);
      ticket.release();
      vi.advanceTimersByTime(5);
    }
    const first = await scheduler.acquire(); // t = 500, refused
    vi.advanceTimersByTime(2);
    first.release();
    scheduler.onRateLimited(first, 0);
    expect(scheduler.state()).toMatchObject({ decreases: 1, allowedPerSecond: 50 });
    expect(scheduler.state().ratePerSecond).toBeCloseTo(49, 5);
    // 20 more calls 25 ms apart (t = 527…1002), then a refusal of a call started at 1102.
    for (let i = 0; i < 20; i++) {
      vi.advanceTimersByTime(25);
      const ticket = await scheduler.acquire();
      scheduler.onSuccess(ticket);
      ticket.release();
    }
    vi.advanceTimersByTime(100);
    const second = await scheduler.acquire();
    vi.advanceTimersByTime(2);
    second.release();
    scheduler.onRateLimited(second, 0);
    // Started in (102, 1102): 39 of the first 50, the refused one (not counted) and the 20.
    expect(scheduler.state()).toMatchObject({ decreases: 2, allowedPerSecond: 59 });
    // Refused while pacing under the allowance: the pace goes 2 % lower still.
    expect(scheduler.state().ratePerSecond).toBeCloseTo(49 * 0.98, 5);
  });

  it("never shrinks the limit below what the pace needs at the observed latency", async () => {
    fakeClock();
    const scheduler = new EndpointScheduler(64, 64);
    // 40 calls 25 ms apart (t = 0…975), each answered a second after it started; one more,
    // started at t = 1000, is refused after them.
    for (let i = 0; i < 40; i++) {
      const ticket = await scheduler.acquire();
      setTimeout(() => {
        scheduler.onSuccess(ticket);
        ticket.release();
      }, 1000);
      await vi.advanceTimersByTimeAsync(25);
    }
    const refused = await scheduler.acquire();
    await vi.advanceTimersByTimeAsync(1000);
    refused.release();
    scheduler.onRateLimited(refused, 1000);
    // 39 accepted in the second before: a pace of 38.22 a second, which at a second each needs
    // 38 calls in flight (57 with room), more than 64 × 0.7.
    expect(scheduler.state()).toMatchObject({ allowedPerSecond: 39, decreases: 1 });
    expect(scheduler.state().ratePerSecond).toBeCloseTo(38.22, 5);
    expect(scheduler.currentLimit).toBe(57);
  });

  it("doubles the limit per round trip until the first push-back, then grows by about one slot per limit", async () => {
    fakeClock();
    const scheduler = new EndpointScheduler(64, 2);
    await afterASecondOfTraffic(scheduler);
    // Once paced, a slot also waits for the pace: the clock moves on until it is granted.
    const acquire = async () => {
      const ticket = scheduler.acquire();
      await vi.advanceTimersByTimeAsync(500);
      return ticket;
    };
    const round = async () => {
      const held = [];
      for (let n = 1; n < scheduler.currentLimit; n++) held.push(await acquire());
      const last = await acquire();
      expect(last.atLimit).toBe(true);
      scheduler.onSuccess(last);
      for (const ticket of [...held, last]) ticket.release();
    };
    // Each success of a call at the limit adds one slot: 2 → 5 in three rounds.
    for (let i = 0; i < 3; i++) await round();
    expect(scheduler.currentLimit).toBe(5);
    const refused = await scheduler.acquire();
    refused.release();
    scheduler.onRateLimited(refused);
    expect(scheduler.currentLimit).toBe(3); // 5 × 0.7
    await round();
    expect(scheduler.currentLimit).toBe(3); // 3.5 + 1 / 3.5
  });

  it("probes an endpoint that refuses even the slowed pace one call at a time, then resumes the pace", async () => {
    fakeClock();
    const scheduler = new EndpointScheduler(64, 64);
    await afterASecondOfTraffic(scheduler);
    const t0 = performance.now();
    const at = () => performance.now() - t0;
    for (let i = 0; i < 100; i++) {
      const ticket = await scheduler.acquire();
      vi.advanceTimersByTime(1);
      scheduler.onSuccess(ticket);
      ticket.release();
      vi.advanceTimersByTime(4);
    }
    // t = 500: the window is spent (it allowed 100) and opens again at t = 1000.
    const first = await scheduler.acquire();
    vi.advanceTimersByTime(2);
    first.release();
    scheduler.onRateLimited(first, 1000);
    expect(scheduler.state().ratePerSecond).toBeCloseTo(98, 5);
    const granted: number[] = [];
    let refusals = 0;
    for (let i = 0; i < 300; i++) {
      void scheduler.acquire().then((ticket) => {
        granted.push(at());
        if (at() < 1000) {
          setTimeout(() => {
            refusals++;
            ticket.release();
            scheduler.onRateLimited(ticket, 1000);
          }, 2);
        } else {
          setTimeout(() => {
            scheduler.onSuccess(ticket);
            ticket.release();
          }, 50);
        }
      });
    }
    await vi.advanceTimersByTimeAsync(1000);
    const closed = granted.filter((t) => t < 1000);
    // At the pace, the spent half second would have seen about 49 calls, all refused.
    expect(refusals).toBe(closed.length);
    expect(closed.length).toBeGreaterThanOrEqual(3);
    expect(closed.length).toBeLessThanOrEqual(10);
    // After the first refusal at the pace the probes come ever further apart, up to 1/8 s.
    const gaps = closed.slice(1).map((t, i) => t - (closed[i] ?? t));
    for (let i = 2; i < gaps.length; i++)
      expect(gaps[i]).toBeGreaterThanOrEqual((gaps[i - 1] ?? 0) - 1);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(125 + 3);
    // The first probe that is not refused reopens the pace: about 98 a second again.
    const open = granted.filter((t) => t >= 1000);
    expect(open[0]).toBeLessThanOrEqual(1000 + 125 + 3);
    expect(open.length).toBeGreaterThanOrEqual(40);
    expect(open.length).toBeLessThanOrEqual(52);
    expect(scheduler.state().decreases).toBe(1);
  });

  // After a second of traffic, 100 calls 5 ms apart, each answered in 1 ms, then one refused:
  // an allowance of 100 a second.
  const pushBackAfter100 = async (scheduler: EndpointScheduler, retryAfterMs: number) => {
    await afterASecondOfTraffic(scheduler);
    for (let i = 0; i < 100; i++) {
      const ticket = await scheduler.acquire();
      vi.advanceTimersByTime(1);
      scheduler.onSuccess(ticket);
      ticket.release();
      vi.advanceTimersByTime(4);
    }
    const refused = await scheduler.acquire();
    vi.advanceTimersByTime(2);
    refused.release();
    scheduler.onRateLimited(refused, retryAfterMs);
  };
  // `count` calls through the queue, each answered in 20 ms.
  const answerQueued = (scheduler: EndpointScheduler, count: number) => {
    for (let i = 0; i < count; i++) {
      void scheduler.acquire().then((ticket) =>
        setTimeout(() => {
          scheduler.onSuccess(ticket);
          ticket.release();
        }, 20),
      );
    }
  };

  it("keeps pacing through a lone refusal, and probes a spent endpoint with first tries", async () => {
    fakeClock();
    const scheduler = new EndpointScheduler(64, 64);
    await pushBackAfter100(scheduler, 1000);
    const refuse = async () => {
      const ticket = scheduler.acquire();
      await vi.advanceTimersByTimeAsync(11);
      vi.advanceTimersByTime(2);
      (await ticket).release();
      scheduler.onRateLimited(await ticket, 1000);
    };
    // Two calls sent at the slowed pace are refused (a sliding window's edge, maybe): the pace
    // goes on. A third, none accepted meanwhile: the endpoint refuses everything for now.
    await refuse();
    await refuse();
    const order: string[] = [];
    const track = (name: string, retry: boolean) =>
      scheduler.acquire(undefined, { retry }).then((ticket) => {
        order.push(name);
        return ticket;
      });
    const paced = track("paced", false);
    await vi.advanceTimersByTimeAsync(11);
    (await paced).release();
    expect(order).toEqual(["paced"]);
    await refuse();
    const retried = track("retry", true);
    const first = track("first try", false);
    await vi.advanceTimersByTimeAsync(5);
    expect(order).toEqual(["paced"]);
    await vi.advanceTimersByTimeAsync(10);
    expect(order).toEqual(["paced", "first try"]);
    // The probe is not refused: the pace resumes, the retry goes next.
    await vi.advanceTimersByTimeAsync(30);
    expect(order).toEqual(["paced", "first try", "retry"]);
    for (const ticket of [await first, await retried]) ticket.release();
    expect(scheduler.state().decreases).toBe(1);
  });

  it("looks past an allowance that one push-back measured at about 10 % a second: it may have seen a ramp", async () => {
    fakeClock();
    const scheduler = new EndpointScheduler(64, 64);
    await pushBackAfter100(scheduler, 1000);
    expect(scheduler.state().ratePerSecond).toBeCloseTo(98, 5);
    answerQueued(scheduler, 1000);
    await vi.advanceTimersByTimeAsync(1000);
    const rate = scheduler.state().ratePerSecond ?? 0;
    expect(rate).toBeGreaterThan(104);
    expect(rate).toBeLessThan(115);
    await vi.advanceTimersByTimeAsync(20_000);
  });

  it("paces just under a confirmed allowance and looks for more only while a long backlog waits", async () => {
    fakeClock();
    const scheduler = new EndpointScheduler(64, 64);
    await pushBackAfter100(scheduler, 0);
    // A second push-back that measures about the same (97 in the second before) confirms it.
    for (let i = 0; i < 97; i++) {
      vi.advanceTimersByTime(10.3);
      const ticket = await scheduler.acquire();
      scheduler.onSuccess(ticket);
      ticket.release();
    }
    vi.advanceTimersByTime(10.3);
    const refused = await scheduler.acquire();
    vi.advanceTimersByTime(2);
    refused.release();
    scheduler.onRateLimited(refused, 1000);
    expect(scheduler.state()).toMatchObject({ allowedPerSecond: 97, decreases: 2 });
    const plateau = 97 * 0.98;
    expect(scheduler.state().ratePerSecond).toBeCloseTo(plateau, 5);
    // Half a second of work queued: a refused probe would cost more than it could gain.
    answerQueued(scheduler, 50);
    await vi.advanceTimersByTimeAsync(1000);
    expect(scheduler.queued).toBe(0);
    expect(scheduler.state().ratePerSecond).toBeCloseTo(plateau, 5);
    // Ten seconds of work: the pace creeps above the allowance, about 1 % a second.
    answerQueued(scheduler, 1000);
    await vi.advanceTimersByTimeAsync(2000);
    const rate = scheduler.state().ratePerSecond ?? 0;
    expect(rate).toBeGreaterThan(plateau + 1);
    expect(rate).toBeLessThan(plateau + 3);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(scheduler.queued).toBe(0);
  });

  it("rejects a waiting caller whose signal aborts", async () => {
    const scheduler = new EndpointScheduler(1);
    await scheduler.acquire();
    const controller = new AbortController();
    const waiting = scheduler.acquire(controller.signal);
    controller.abort(new Error("stop"));
    await expect(waiting).rejects.toThrow("stop");
  });

  it("hands slots out in order, retries first, and never to a newcomer ahead of the queue", async () => {
    const scheduler = new EndpointScheduler(1);
    const first = await scheduler.acquire();
    const order: string[] = [];
    const track = (name: string, options?: { retry?: boolean }) =>
      scheduler.acquire(undefined, options).then((ticket) => {
        order.push(name);
        return ticket;
      });
    const a = track("a");
    const b = track("b");
    const retried = track("retry", { retry: true });
    first.release();
    (await retried).release();
    (await a).release();
    const late = track("late");
    (await b).release();
    (await late).release();
    expect(order).toEqual(["retry", "a", "b", "late"]);
    expect(scheduler.queued).toBe(0);
  });
});

// ── Against a simulated rate-limited endpoint on a fake clock ──

/**
 * `count` judgments through a scheduler as callJudge makes them (a refused call is released,
 * reported, and retried after its Retry-After plus up to 10 % jitter, ahead of first tries),
 * against an endpoint that accepts `perSecond` requests per window of a second (fixed windows
 * from the first request, or a sliding second), answers in about 50 ms and sends a whole-second
 * Retry-After, or the exact wait in milliseconds. The jitter comes from a seeded generator, so
 * a run is the same every time.
 */
async function simulate(options: {
  window: "fixed" | "sliding";
  retryAfter: "seconds" | "ms";
  perSecond: number;
  count: number;
  seed: number;
  /** This request (1 for the first) is refused on its own, as a provider's passing hiccup. */
  loneRefusal?: number;
  /** How long an answer takes, ms (about 50 by default). */
  latencyMs?: number;
}) {
  fakeClock();
  let state = options.seed;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  let windowStart: number | undefined;
  let inWindow = 0;
  const accepted: number[] = [];
  let requests = 0;
  // How long until the endpoint accepts one more request, or 0 when it accepts this one.
  const admit = (now: number): number => {
    if (++requests === options.loneRefusal) return 1000;
    if (options.window === "fixed") {
      windowStart ??= now;
      if (now - windowStart >= 1000) {
        windowStart = now - ((now - windowStart) % 1000);
        inWindow = 0;
      }
      if (inWindow >= options.perSecond) return windowStart + 1000 - now;
      inWindow++;
      return 0;
    }
    while (accepted.length > 0 && (accepted[0] ?? 0) <= now - 1000) accepted.shift();
    if (accepted.length >= options.perSecond) return (accepted[0] ?? 0) + 1000 - now;
    accepted.push(now);
    return 0;
  };
  const scheduler = new EndpointScheduler(64);
  let firstAt: number | undefined;
  let lastAt = 0;
  let refused = 0;
  const judge = async (): Promise<number> => {
    for (let attempt = 0; ; attempt++) {
      const ticket = await scheduler.acquire(undefined, { retry: attempt > 0 });
      await sleep(1 + random() * 3);
      const now = performance.now();
      firstAt ??= now;
      const wait = admit(now);
      if (wait === 0) {
        await sleep((options.latencyMs ?? 50) + random() * 3);
        lastAt = performance.now();
        scheduler.onSuccess(ticket);
        ticket.release();
        return attempt + 1;
      }
      refused++;
      await sleep(1 + random() * 3);
      ticket.release();
      const retryAfterMs =
        options.retryAfter === "ms" ? Math.ceil(wait) : Math.ceil(wait / 1000) * 1000;
      scheduler.onRateLimited(ticket, retryAfterMs);
      await sleep(retryAfterMs + random() * Math.min(250, retryAfterMs * 0.1));
    }
  };
  let done = false;
  const all = Promise.all(Array.from({ length: options.count }, judge)).finally(() => {
    done = true;
  });
  while (!done) await vi.advanceTimersByTimeAsync(100);
  const tries = await all;
  vi.useRealTimers();
  return {
    // Of the allowed rate, from the first request to the last answer (as bench/judges.mjs).
    fraction: options.count / ((lastAt - (firstAt ?? 0)) / 1000) / options.perSecond,
    seconds: (lastAt - (firstAt ?? 0)) / 1000,
    refused,
    maxTries: Math.max(...tries),
  };
}

describe("against a simulated rate-limited endpoint on a fake clock", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each([
    ["fixed", "seconds"],
    ["sliding", "seconds"],
    ["fixed", "ms"],
  ] as const)(
    "%s window, Retry-After in %s: at least 0.95 of the allowed rate, few refusals",
    async (window, retryAfter) => {
      for (const seed of [1, 2, 3]) {
        const run = await simulate({ window, retryAfter, perSecond: 100, count: 1000, seed });
        // Every judgment was answered (else the run would not end), after at most 4 tries (the
        // default allows 6), at 95 % of the allowed rate or more: a whole-second Retry-After
        // that holds the refused calls for a full second costs them, not the endpoint's rate
        // (the scheduler before this one reached 89.8 % on the fixed window here, as in the
        // benchmark).
        expect(run.maxTries).toBeLessThanOrEqual(4);
        expect(run.fraction).toBeGreaterThanOrEqual(0.95);
        expect(run.fraction).toBeLessThanOrEqual(1.01);
        // A push-back within the first second is a guess (see the next describe): against a
        // fixed window the pace it sets spends one more window early, about 30 more refusals.
        expect(run.refused).toBeLessThanOrEqual(120);
      }
    },
  );
});

describe("after a lone refusal of an early call, on a fake clock", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("does not take the calls sent before it for the endpoint's allowance", async () => {
    fakeClock();
    const scheduler = new EndpointScheduler(64);
    // Four calls answered in 50 ms, then the fifth refused 5 ms after it started.
    const first = await Promise.all([1, 2, 3, 4, 5].map(() => scheduler.acquire()));
    vi.advanceTimersByTime(5);
    first[4]?.release();
    scheduler.onRateLimited(first[4]!, 1000);
    // Five calls sent in the 5 ms before the refusal came: 1,000 a second, halved; not the
    // 3.92 a second that four accepted in "the second before" would give.
    expect(scheduler.state()).toMatchObject({ decreases: 1, allowedPerSecond: undefined });
    expect(scheduler.state().ratePerSecond).toBeCloseTo(500, 5);
    vi.advanceTimersByTime(45);
    for (const ticket of first.slice(0, 4)) {
      scheduler.onSuccess(ticket);
      ticket.release();
    }
  });

  it("sliding window: at least 0.9 of the allowed rate, as without the refusal", async () => {
    for (const seed of [1, 2, 3]) {
      const run = await simulate({
        window: "sliding",
        retryAfter: "seconds",
        perSecond: 100,
        count: 1000,
        seed,
        loneRefusal: 5,
      });
      // Pinned at what the first four calls measured, the pace reached 62–64 % of the rate.
      expect(run.fraction).toBeGreaterThanOrEqual(0.9);
      expect(run.maxTries).toBeLessThanOrEqual(4);
      expect(run.refused).toBeLessThanOrEqual(100);
    }
  });

  it("slow answers and no limit in sight: about as fast as without the refusal", async () => {
    // 300 ms answers, an endpoint that would take 10,000 a second: the client's own limit is
    // what holds it. A guessed pace must grow back by round trips, not by a call a second.
    const run = (loneRefusal?: number) =>
      simulate({
        window: "sliding",
        retryAfter: "seconds",
        perSecond: 10_000,
        count: 400,
        seed: 1,
        latencyMs: 300,
        ...(loneRefusal ? { loneRefusal } : {}),
      });
    const without = await run();
    for (const at of [1, 6]) {
      const refused = await run(at);
      expect(refused.refused).toBe(1);
      // Before: 5.7 s against 2.2 s for the same calls with no refusal.
      expect(refused.seconds).toBeLessThanOrEqual(1.5 * without.seconds);
    }
  });
});

describe("after a burst of refusals at the start, on a fake clock", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("grows its pace back once calls get through, instead of keeping half of the burst's rate", async () => {
    fakeClock();
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const scheduler = new EndpointScheduler(64);
    // The endpoint refuses its first 8 requests (overloaded, no Retry-After), then answers
    // every request in 50 ms; 8 callers (a run's concurrency) judge 200 cases between them.
    let requests = 0;
    const judge = async () => {
      for (let attempt = 0; ; attempt++) {
        const ticket = await scheduler.acquire(undefined, { retry: attempt > 0 });
        await sleep(1);
        if (++requests <= 8) {
          ticket.release();
          scheduler.onRateLimited(ticket);
          await sleep(500);
          continue;
        }
        await sleep(50);
        scheduler.onSuccess(ticket);
        ticket.release();
        return;
      }
    };
    let left = 200;
    const caller = async () => {
      while (left-- > 0) await judge();
    };
    const started = performance.now();
    const done = Promise.all(Array.from({ length: 8 }, caller));
    await vi.runAllTimersAsync();
    await done;
    // 200 calls of 50 ms, 8 at a time, take 1.3 s at full speed; pinned at 4 calls a second
    // they took 50 s.
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});

// ── Against a real loopback server, default settings but for the fast test backoff ──

const request = (n: number): JudgeChatRequest => ({
  system: "judge",
  messages: [{ role: "user", content: `question ${n}` }],
  answer: { name: "verdict", description: "d", schema: { type: "object" } },
  temperature: 0,
  maxOutputTokens: 50,
});

describe("adaptive concurrency against a loopback endpoint", () => {
  let server: FakeLlmServer | undefined;
  let env: Awaited<ReturnType<typeof isolateJudges>>;
  beforeEach(async () => {
    env = await isolateJudges();
    // Default retry count, so a lost judgment would show.
    configureJudges({ maxRetries: 5, timeoutMs: 10_000 });
  });
  afterEach(async () => {
    await server?.close();
    await env.cleanup();
  });
  const start = async (options: Parameters<typeof startFakeLlmServer>[0]) => {
    server = await startFakeLlmServer({ respond: () => fake.json({ ok: true }), ...options });
    process.env.NICEEVAL_JUDGE_BASE_URL = server.openaiBaseURL;
    return server;
  };
  const judgeMany = (count: number, from = 0) =>
    withJudgeLedger(() =>
      Promise.all(Array.from({ length: count }, (_, i) => callJudge("m", request(from + i)))),
    );

  it("grows past the initial limit while the endpoint keeps answering", async () => {
    const endpoint = await start({ latencyMs: 20 });
    const { result } = await judgeMany(300);
    expect(result.every((r) => r.ok)).toBe(true);
    const state = schedulerFor(endpoint.openaiBaseURL).state();
    expect(state.peakLimit).toBeGreaterThan(INITIAL_CONCURRENCY);
    expect(endpoint.maxInFlight).toBeGreaterThan(INITIAL_CONCURRENCY);
    expect(state.decreases).toBe(0);
    expect(state.ratePerSecond).toBeUndefined();
  });

  it("shrinks on 429, paces itself, and loses no judgment", async () => {
    const endpoint = await start({ latencyMs: 10, rateLimit: { perWindow: 40, windowMs: 250 } });
    const { result, usage } = await judgeMany(240);
    expect(result.every((r) => r.ok)).toBe(true);
    // Each judgment was answered exactly once; every 429 was one retry.
    expect(new Set(endpoint.requests.map((r) => JSON.stringify(r.body.messages))).size).toBe(240);
    expect(endpoint.requests).toHaveLength(240);
    expect(endpoint.rejected).toBeGreaterThan(0);
    expect(usage.retries).toBe(endpoint.rejected);
    const state = schedulerFor(endpoint.openaiBaseURL).state();
    expect(state.decreases).toBeGreaterThan(0);
    expect(state.ratePerSecond).toBeGreaterThan(0);
  });

  it("keeps calling while a whole-second Retry-After holds the call that got it", async () => {
    const endpoint = await start({
      latencyMs: 5,
      rateLimit: { perWindow: 15, windowMs: 500, headers: "seconds" },
    });
    // Enough calls that some are still unsent when the first 429 comes back: with 45, a slow
    // machine (client and server share this process) had every call in flight by then, all of
    // them refused and waiting their own Retry-After, and nothing left to send in between.
    const { result } = await judgeMany(90);
    expect(result.every((r) => r.ok)).toBe(true);
    // Between the first 429 and that call's retry, the endpoint went on hearing from others:
    // slowed, not frozen for the second it asked that one call to wait.
    const first = endpoint.arrivals.findIndex((a) => a.rejected);
    expect(first).toBeGreaterThanOrEqual(0);
    const message = endpoint.arrivals[first]?.lastMessage;
    const retry = endpoint.arrivals.findIndex((a, i) => i > first && a.lastMessage === message);
    expect(retry).toBeGreaterThan(first);
    const between = endpoint.arrivals.slice(first + 1, retry).filter((a) => !a.rejected);
    expect(between.length).toBeGreaterThanOrEqual(5);
  });
});
