import { describe, expect, it } from "vitest";
import { Watchdog } from "./watchdog.js";

/** Synchronous work that never yields. */
function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {}
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** What a guarded attempt came to: its value, or the message it was cut off with. */
const outcome = (running: Promise<string>) =>
  running.then(
    (value) => value,
    (error: Error) => error.message,
  );

// The last-resort limit is one timer, a sweep every quarter of it: an attempt that holds the
// thread past it can only be seen as it settles, or by the first sweep after.
describe("the watchdog, when an attempt held the thread past the last-resort limit", () => {
  it("cuts off one that settles past it when it was the only attempt in flight", async () => {
    const watchdog = new Watchdog(40);
    try {
      const message = await outcome(
        watchdog.guard(async () => {
          await Promise.resolve();
          busy(200);
          return "done";
        }),
      );
      expect(message).toMatch(
        /^the attempt did not settle within the last-resort limit of 40 ms: it held the thread past that limit/,
      );
    } finally {
      watchdog.stop();
    }
  });

  it("cuts off neither of two in flight side by side, which of them held the thread not being known", async () => {
    const watchdog = new Watchdog(40);
    try {
      // `waits` waits for a timer that comes due while `blocks` holds the thread; the sweep due
      // before that timer runs first after the block, and finds `waits` past its limit.
      const waits = outcome(watchdog.guard(() => sleep(30).then(() => "waited")));
      const blocks = outcome(
        watchdog.guard(async () => {
          await Promise.resolve();
          busy(200);
          return "blocked";
        }),
      );
      expect(await Promise.all([waits, blocks])).toEqual(["waited", "blocked"]);
    } finally {
      watchdog.stop();
    }
  });

  it("still cuts off one that never settles beside them, at the sweep after", async () => {
    const watchdog = new Watchdog(40);
    try {
      const stuck = outcome(watchdog.guard(() => new Promise<string>(() => {})));
      const blocks = outcome(
        watchdog.guard(async () => {
          await Promise.resolve();
          busy(200);
          return "blocked";
        }),
      );
      expect(await blocks).toBe("blocked");
      expect(await stuck).toBe(
        "the attempt did not settle within the last-resort limit of 40 ms; set a tighter one with the timeoutMs of the run (runEval, runEvals) or of the eval (defineSuite, defineScoreEval)",
      );
    } finally {
      watchdog.stop();
    }
  });
});
