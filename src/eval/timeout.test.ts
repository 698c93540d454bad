import { stat } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { attempts, flightEnded, flightStarted } from "./in-flight.js";
import { Deadline, heldPastLimit, limitPassed } from "./timeout.js";

/** Synchronous work that never yields. */
function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {}
}

/** Run `body` as one attempt in flight, beside `others` more. */
async function asAttempt<T>(others: number, body: () => Promise<T>): Promise<T> {
  for (let i = 0; i <= others; i++) flightStarted(attempts);
  try {
    return await body();
  } finally {
    for (let i = 0; i <= others; i++) flightEnded(attempts);
  }
}

/** A part raced against a 20 ms limit that holds the thread 120 ms after its first await. */
async function blockedAfterAwait(deadline: Deadline): Promise<string> {
  return deadline.race(
    async () => {
      await Promise.resolve();
      busy(120);
      return "done";
    },
    () => "timed out",
  );
}

describe("a Deadline whose part ends past its limit before the timer fired", () => {
  it("times out a part that held the thread after an await, when its attempt was alone", async () => {
    await asAttempt(0, async () => {
      const deadline = new Deadline(new AbortController().signal, 20);
      try {
        expect(await blockedAfterAwait(deadline)).toBe("timed out");
        expect(limitPassed(deadline.signal)).toBe(true);
        expect(heldPastLimit(deadline.signal)).toBeGreaterThanOrEqual(120);
        expect(deadline.timeoutError("the target").message).toMatch(
          /^the target timed out after 20 ms: the attempt held the thread past the limit, to \d+ ms/,
        );
      } finally {
        deadline.dispose();
      }
    });
  });

  it("keeps what it gave beside another attempt: which of them held the thread is not known", async () => {
    await asAttempt(1, async () => {
      const deadline = new Deadline(new AbortController().signal, 20);
      try {
        expect(await blockedAfterAwait(deadline)).toBe("done");
        expect(limitPassed(deadline.signal)).toBe(false);
        expect(heldPastLimit(deadline.signal)).toBeUndefined();
      } finally {
        deadline.dispose();
      }
    });
  });

  it("times out a part whose synchronous start held the thread, beside other attempts too", async () => {
    await asAttempt(1, async () => {
      const deadline = new Deadline(new AbortController().signal, 20);
      try {
        const out = await deadline.race(
          () => {
            busy(120);
            return "done";
          },
          () => "timed out",
        );
        expect(out).toBe("timed out");
        expect(heldPastLimit(deadline.signal)).toBeGreaterThanOrEqual(120);
      } finally {
        deadline.dispose();
      }
    });
  });

  it("lets a part beside another attempt end whose wait ended while that one held the thread", async () => {
    // In the check phase, so that after the block the loop runs the limit's timer (due during
    // it) before the poll phase hands this part the answer that came meanwhile (one stat of a
    // file: one trip to the thread pool).
    const out = await new Promise<string>((resolve, reject) => {
      setImmediate(() => {
        asAttempt(1, async () => {
          const deadline = new Deadline(new AbortController().signal, 20);
          try {
            const raced = deadline.race(
              () => stat(fileURLToPath(import.meta.url)).then(() => "read"),
              () => "timed out",
            );
            // The part has asked (race starts it in a microtask); then another holds the thread.
            await Promise.resolve();
            await Promise.resolve();
            busy(150);
            return await raced;
          } finally {
            deadline.dispose();
          }
        }).then(resolve, reject);
      });
    });
    expect(out).toBe("read");
  });
});

describe("a Deadline expired by one part holding the thread in its synchronous start", () => {
  /** Race `eq` (finished at once) and a part that holds the thread 120 ms past a 20 ms limit. */
  async function beside(eq: () => string | Promise<string>, others = 0): Promise<string[]> {
    return asAttempt(others, async () => {
      const deadline = new Deadline(new AbortController().signal, 20);
      try {
        const blocker = () => {
          busy(120);
          return "blocked";
        };
        return await Promise.all([
          deadline.race(eq, () => "eq timed out"),
          deadline.race(blocker, () => "blocker timed out"),
        ]);
      } finally {
        deadline.dispose();
      }
    });
  }

  it("keeps the value of a synchronous part that finished before it, blaming only the blocker", async () => {
    expect(await beside(() => "eq")).toEqual(["eq", "blocker timed out"]);
  });

  it("keeps the value of an async part already resolved before it", async () => {
    expect(await beside(async () => "eq")).toEqual(["eq", "blocker timed out"]);
  });

  it("keeps them beside other attempts too", async () => {
    expect(await beside(() => "eq", 1)).toEqual(["eq", "blocker timed out"]);
  });

  it("still times out a part that was waiting when the thread was held", async () => {
    const waiting = () => new Promise<string>((resolve) => setTimeout(() => resolve("eq"), 5));
    expect(await beside(waiting)).toEqual(["eq timed out", "blocker timed out"]);
  });
});
