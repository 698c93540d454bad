import { describe, expect, it } from "vitest";
import { aloneSince, type Flights, flightEnded, flightStarted, inFlight } from "./in-flight.js";

const fresh = (): Flights => ({ count: 0, lastShared: -Infinity });

describe("attempts in flight", () => {
  it("tells an attempt that was alone since a time from one that had company then", () => {
    const flights = fresh();
    flightStarted(flights);
    const since = performance.now();
    expect(aloneSince(flights, since)).toBe(true);
    // Another comes: not alone while it is in flight, nor once it has gone, since before it came.
    flightStarted(flights);
    expect(aloneSince(flights, since)).toBe(false);
    flightEnded(flights);
    expect(flights.count).toBe(1);
    expect(aloneSince(flights, since)).toBe(false);
    // Alone again from after it went.
    expect(aloneSince(flights, performance.now() + 1)).toBe(true);
    flightEnded(flights);
    expect(flights.count).toBe(0);
  });

  it("counts an attempt until what it gave settles, synchronous, asynchronous or thrown", async () => {
    const flights = fresh();
    expect(inFlight(flights, () => 1)).toBe(1);
    expect(flights.count).toBe(0);
    expect(() =>
      inFlight(flights, () => {
        throw new Error("boom");
      }),
    ).toThrow("boom");
    expect(flights.count).toBe(0);
    let finish!: (value: number) => void;
    const running = inFlight(flights, () => new Promise<number>((resolve) => (finish = resolve)));
    expect(flights.count).toBe(1);
    finish(2);
    expect(await running).toBe(2);
    expect(flights.count).toBe(0);
    await expect(inFlight(flights, () => Promise.reject(new Error("no")))).rejects.toThrow("no");
    expect(flights.count).toBe(0);
  });
});
