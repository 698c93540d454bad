import { describe, expect, it } from "vitest";
import { EndpointScheduler } from "../../src/judge/scheduler.js";

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

  it("halves once per congestion event and grows back by about one per window of successes", async () => {
    const scheduler = new EndpointScheduler(8);
    const tickets = await Promise.all([1, 2, 3].map(() => scheduler.acquire()));
    for (const ticket of tickets) scheduler.onRateLimited(ticket);
    expect(scheduler.currentLimit).toBe(4);
    const later = await scheduler.acquire();
    scheduler.onRateLimited(later);
    expect(scheduler.currentLimit).toBe(2);
    for (let i = 0; i < 3; i++) scheduler.onSuccess();
    expect(scheduler.currentLimit).toBe(3);
    for (let i = 0; i < 100; i++) scheduler.onSuccess();
    expect(scheduler.currentLimit).toBe(8);
  });

  it("holds every caller during a pause the endpoint asked for", async () => {
    const scheduler = new EndpointScheduler(4);
    scheduler.pause(120);
    const started = Date.now();
    const ticket = await scheduler.acquire();
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
    ticket.release();
  });

  it("rejects a waiting caller whose signal aborts", async () => {
    const scheduler = new EndpointScheduler(1);
    await scheduler.acquire();
    const controller = new AbortController();
    const waiting = scheduler.acquire(controller.signal);
    controller.abort(new Error("stop"));
    await expect(waiting).rejects.toThrow("stop");
  });
});

describe("EndpointScheduler order", () => {
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
