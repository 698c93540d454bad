import { realNow } from "../clock.js";
import { processWide } from "../process-wide.js";

// Attempts run side by side on one thread in process, and a time limit is a timer, which fires
// only once the thread is free: an attempt that ends past its limit before its timer fired either
// held the thread itself or waited while something else held it. Which code held it is not known
// without following every promise (AsyncLocalStorage, which slows every promise in the process),
// but when no other attempt was in flight meanwhile, only its own code can have held it (or code
// outside any attempt, as a supervised run, which blames the one attempt in flight, also says).

/** How many attempts of one kind are in flight, and when two or more last were. */
export interface Flights {
  count: number;
  /** realNow() when two or more last were in flight (-Infinity: never). */
  lastShared: number;
}

/** A count of attempts in flight in this process, one even across copies of niceeval. */
export function flightsOf(name: string): Flights {
  return processWide(`in-flight.${name}`, () => ({ count: 0, lastShared: -Infinity }));
}

/** Every attempt of this process, from its start to its record (suites and score evals). */
export const attempts: Flights = flightsOf("attempts");

export function flightStarted(flights: Flights): void {
  flights.count++;
}

/** An attempt counted by {@link flightStarted} ended (or was given up on). */
export function flightEnded(flights: Flights): void {
  // The end of a stretch with others in flight: what an attempt still running asks about.
  if (flights.count === 2) flights.lastShared = realNow();
  flights.count--;
}

/**
 * Whether the attempt asking, itself in flight, was the only one from `since` to now: then no
 * other attempt's code can have held the thread in that time.
 */
export function aloneSince(flights: Flights, since: number): boolean {
  return flights.count <= 1 && flights.lastShared < since;
}

/** Run one attempt, counted in `flights` until what `run` gives has settled. */
export function inFlight<T>(flights: Flights, run: () => T | Promise<T>): T | Promise<T> {
  flightStarted(flights);
  let out: T | Promise<T>;
  try {
    out = run();
  } catch (error) {
    flightEnded(flights);
    throw error;
  }
  if (!(out instanceof Promise)) {
    flightEnded(flights);
    return out;
  }
  return out.finally(() => flightEnded(flights));
}
