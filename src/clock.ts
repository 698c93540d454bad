import { performance } from "node:perf_hooks";
import * as timers from "node:timers";

// niceeval's own timing (time limits, the watchdog, judge retries and pacing, elapsed times)
// runs on the real clock, taken here as this module loads. Code under test may fake the globals
// (Vitest's `vi.useFakeTimers()` replaces setTimeout, setImmediate, Date and performance), which
// must not stop a time limit from firing nor freeze what it measures; `node:timers` and
// `node:perf_hooks` are left as they are.

/** The real `setTimeout`, whatever replaces the global one. */
export const setTimeout: typeof timers.setTimeout = timers.setTimeout;
/** The real `clearTimeout`. */
export const clearTimeout: typeof timers.clearTimeout = timers.clearTimeout;
/** The real `setInterval`. */
export const setInterval: typeof timers.setInterval = timers.setInterval;
/** The real `clearInterval`. */
export const clearInterval: typeof timers.clearInterval = timers.clearInterval;
/** The real `setImmediate`. */
export const setImmediate: typeof timers.setImmediate = timers.setImmediate;

const perfNow = performance.now.bind(performance);
/** The real `performance.now()`: ms since the process started, monotonic. */
export const realNow = (): number => perfNow();

const timeOrigin = performance.timeOrigin;
/** The real `performance.timeOrigin + performance.now()`: ms since the epoch, to the fraction. */
export const realEpochNow = (): number => timeOrigin + perfNow();

const dateNow = Date.now;
/** The real `Date.now()`: ms since the epoch, whatever replaces the global `Date`. */
export const realDateNow = (): number => dateNow();

const RealDate = Date;
/** The real `new Date().toISOString()`, for the time stamps of reports and events. */
export const realIsoNow = (): string => new RealDate(dateNow()).toISOString();
