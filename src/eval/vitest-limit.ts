import type { AttemptRecord } from "./record.js";
import { timeoutOptions } from "./run-origin.js";
import { heldThread, MAX_TIMER_MS } from "./timeout.js";
import { type FaceReading, fakedTicks } from "./vitest-leaks.js";

// niceeval's limit on a Vitest face's case, a little under its test's timeout, and what it
// stopped said in the test's words.

/** niceeval's limit on a case and the test's timeout it stays under, ms. */
export interface CaseLimit {
  ms: number;
  testTimeout: number;
  /** How far into the case its code held the thread past the limit, when it did. */
  held?: number | undefined;
}

/**
 * The limit niceeval holds a case to: a little under the test's timeout (Vitest sets the test's
 * `timeout` from `it`'s timeout argument, else `testTimeout`), 10% of it and at most 100 ms
 * less, so the case's record, meta and failure message are made before Vitest's own timeout
 * fails the test with nothing but "Test timed out". None when the test has no timeout.
 */
export function caseLimit(testTimeout: number | undefined): CaseLimit | undefined {
  if (testTimeout === undefined || !(testTimeout > 0) || testTimeout >= MAX_TIMER_MS)
    return undefined;
  const ms = testTimeout - Math.min(100, Math.max(1, Math.floor(testTimeout / 10)));
  return ms >= 1 ? { ms, testTimeout } : undefined;
}

/** "`what` timed out after N ms (the test's timeout, T ms, less …)". */
export function timedOut(what: string, limit: CaseLimit): string {
  const after = limitPassedText(what, limit);
  return limit.held === undefined
    ? `${after}; raise the timeout or make it faster`
    : `${after}: ${heldThread(limit.held)}; make it yield (await between its steps), raise the timeout or make it faster`;
}

/** "`what` timed out after N ms (the test's timeout, T ms, less …)", without advice. */
function limitPassedText(what: string, limit: CaseLimit): string {
  return `${what} timed out after ${limit.ms} ms (the test's timeout, ${limit.testTimeout} ms, less ${limit.testTimeout - limit.ms} ms for niceeval to report it)`;
}

/**
 * Say what the limit stopped in the test's own words: the engine's words name the `timeoutMs` of
 * a run or an eval, which a test does not have. A scorer cut off while a judge call was in flight
 * keeps the engine's account of that call (eval/timeout.ts, judge/waiting.ts).
 */
export function explainTimeouts(
  record: AttemptRecord,
  limit: CaseLimit,
  targetTimedOut: boolean,
  targetName: string,
  host: FaceReading,
): void {
  if (targetTimedOut && record.error) record.error.message = timedOut(targetName, limit);
  for (const judgment of record.judgments) {
    const what = `scorer "${judgment.label}"`;
    const engine = `${what} timed out after ${limit.ms} ms`;
    if (judgment.state !== "errored" || !judgment.reason.startsWith(engine)) continue;
    judgment.reason =
      judgeWaitTimedOut(judgment.reason.slice(engine.length), what, limit, host) ??
      timedOut(what, limit);
  }
}

/**
 * The engine's words after "timed out after N ms" for a scorer cut off while a judge call was in
 * flight (` while judge … at …; raise <the run's options><advice>`), in the test's; undefined for
 * other words. Says so when the test faked what Node's fetch, which judges call, waits on.
 */
function judgeWaitTimedOut(
  rest: string,
  what: string,
  limit: CaseLimit,
  host: FaceReading,
): string | undefined {
  const raise = `; raise ${timeoutOptions(undefined)}`;
  const at = rest.indexOf(raise);
  if (!rest.startsWith(" while ") || at === -1) return undefined;
  const faked = fakedTicks(host);
  const ticks =
    faked.length === 0
      ? ""
      : `; ${faked.join(", ")} ${faked.length > 1 ? "were" : "was"} faked (vi.useFakeTimers with ${faked.length > 1 ? "them" : "it"} in \`toFake\`) while the judge waited, and Node's fetch, which judges call, does not answer without ${faked.length > 1 ? "them" : "it"}: leave ${faked.length > 1 ? "them" : "it"} out of \`toFake\``;
  return `${limitPassedText(what, limit)} ${rest.slice(1, at)}${ticks}; raise the test's timeout${rest.slice(at + raise.length)}`;
}
