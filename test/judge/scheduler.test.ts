import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callJudge, schedulerFor } from "../../src/judge/call.js";
import type { JudgeChatRequest } from "../../src/judge/chat.js";
import { configureJudges } from "../../src/judge/config.js";
import { withJudgeLedger } from "../../src/judge/ledger.js";
import { EndpointScheduler, INITIAL_CONCURRENCY } from "../../src/judge/scheduler.js";
import { type FakeLlmServer, fake, startFakeLlmServer } from "../support/fake-llm-server.js";
import { isolateJudges } from "./judge-env.js";

describe("EndpointScheduler", () => {
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

  it("shrinks by 30 % once per push-back event and paces at what the endpoint served", async () => {
    const scheduler = new EndpointScheduler(64, 20);
    const served = await Promise.all(Array.from({ length: 20 }, () => scheduler.acquire()));
    for (const ticket of served) {
      scheduler.onSuccess(ticket);
      ticket.release();
    }
    const before = scheduler.currentLimit;
    const tickets = await Promise.all([1, 2, 3].map(() => scheduler.acquire()));
    for (const ticket of tickets) scheduler.onRateLimited(ticket);
    expect(scheduler.state()).toMatchObject({ decreases: 1, limit: Math.floor(before * 0.7) });
    // 20 answers in the last second: the pace is a little under 20 a second.
    expect(scheduler.state().ratePerSecond).toBeCloseTo(19, 5);
    // A call started after the decrease is a new event; one within its Retry-After is not.
    const later = await scheduler.acquire();
    scheduler.onRateLimited(later, 60_000);
    const again = await scheduler.acquire();
    scheduler.onRateLimited(again, 60_000);
    expect(scheduler.state().decreases).toBe(2);
    for (const ticket of [...tickets, later, again]) ticket.release();
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
    const { result } = await judgeMany(45);
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
