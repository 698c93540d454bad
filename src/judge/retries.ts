// One call to a model endpoint, made the dependable way: through the endpoint's scheduler, with a
// timeout per try, retries (honouring Retry-After) and the memory of endpoints no call could
// reach. Judge calls and embedding calls both go through it; what they send is theirs.

import { clearTimeout, realDateNow, realNow, setTimeout } from "../clock.js";
import { errorMessage } from "../errors.js";
import { emptyJudgeUsage, type JudgeUsage } from "../eval/record.js";
import { clampTimer } from "../eval/timeout.js";
import { processWide } from "../process-wide.js";
import { JudgeCallError } from "./call-error.js";
import { addTokens } from "./call-usage.js";
import { type JudgeSettings, judgeSettings, onJudgeSettings } from "./config.js";
import { type JudgeWait, recordJudgeUsage, trackJudgeWait } from "./ledger.js";
import { EndpointScheduler, type SchedulerTicket } from "./scheduler.js";

/** What a call came to: an answer, or why there is none. */
export type Outcome<T> = { ok: true; response: T } | { ok: false; reason: string };

/**
 * What one call came to. `counted`: its call and retries were told to the ledgers as they
 * happened (a real call), so a call the attempt's time limit cut off still counts.
 */
export type Attempted<T> = {
  outcome: Outcome<T>;
  usage: JudgeUsage;
  cached: boolean;
  counted?: boolean;
};

/** One call to an endpoint: where it goes, how it is named, and how one try is sent. */
export interface EndpointCall<T> {
  /** Calls with this key share a scheduler and the memory of an unreachable endpoint. */
  endpoint: string;
  /** Names the endpoint in a try's timeout or an unexpected failure (a provider id). */
  provider: string;
  /** Names the call to a time limit that cuts it off: `judge "openai/gpt-4.1-mini" at <endpoint>`. */
  who: string;
  /** One try: resolves the answer, throws a JudgeCallError (or rejects when `signal` aborts). */
  send: (signal: AbortSignal) => Promise<T>;
}

const schedulers = processWide("judge.schedulers", () => new Map<string, EndpointScheduler>());
/**
 * Endpoints a call could not reach after all its tries: until when new calls fail at once, and
 * why. A mistyped base URL or a server that is down then costs one call's retries, not every
 * judgment's.
 */
const unreachable = processWide(
  "judge.unreachable",
  () => new Map<string, { until: number; reason: string }>(),
);
/** How long an endpoint no call could reach is not tried again, ms. */
const UNREACHABLE_FOR_MS = 30_000;

/** An endpoint pushed back (429, 503, 529): what a queue worker forwards to the whole fleet. */
export interface JudgePushBack {
  endpoint: string;
  status?: number;
  retryAfterMs?: number;
}
const pushBackListeners = processWide(
  "judge.pushBackListeners",
  () => new Set<(event: JudgePushBack) => void>(),
);

/** Be told of every push-back a judge endpoint gives this process; returns the unsubscribe. */
export function onJudgePushBack(listener: (event: JudgePushBack) => void): () => void {
  pushBackListeners.add(listener);
  return () => pushBackListeners.delete(listener);
}

onJudgeSettings((settings) => {
  for (const scheduler of schedulers.values()) scheduler.setMaxConcurrency(settings.concurrency);
});

/** The scheduler of one endpoint (created on first use). */
export function schedulerFor(endpoint: string): EndpointScheduler {
  let scheduler = schedulers.get(endpoint);
  if (!scheduler) {
    scheduler = new EndpointScheduler(judgeSettings().concurrency);
    schedulers.set(endpoint, scheduler);
  }
  return scheduler;
}

/**
 * Make `call` with retries. Each try is told to the ledgers as it is sent, and while it is in
 * flight it is a {@link JudgeWait} of every open ledger's scope. Only an abort of `signal`
 * throws; every failure is an outcome with its reason.
 */
export async function callWithRetries<T>(
  call: EndpointCall<T>,
  settings: Readonly<JudgeSettings>,
  signal: AbortSignal | undefined,
): Promise<Attempted<T>> {
  const down = unreachable.get(call.endpoint);
  // The real clock: a test's fake one (vi.setSystemTime) would keep the endpoint down for years.
  const now = realDateNow();
  if (down && now < down.until) {
    const seconds = Math.ceil((down.until - now) / 1000);
    return {
      outcome: {
        ok: false,
        reason: `${down.reason}; not tried again for ${seconds} s (the endpoint could not be reached by an earlier call)`,
      },
      usage: emptyJudgeUsage(),
      cached: false,
    };
  }
  const scheduler = schedulerFor(call.endpoint);
  const usage: JudgeUsage = { ...emptyJudgeUsage(), calls: 1 };
  const wait: JudgeWait = {
    who: call.who,
    tryNumber: 1,
    tries: settings.maxRetries + 1,
    phase: "slot",
    timeoutMs: settings.timeoutMs,
  };
  const untrack = trackJudgeWait(wait);
  try {
    for (let attempt = 0; ; attempt++) {
      wait.tryNumber = attempt + 1;
      wait.phase = "slot";
      const ticket = await scheduler.acquire(signal, { retry: attempt > 0 });
      wait.phase = "answer";
      // Told as each try is sent: the attempt's time limit may cut it off, and it was made all the same.
      recordJudgeUsage(attempt === 0 ? { calls: 1 } : { retries: 1 });
      const started = realNow();
      let failure: JudgeCallError;
      try {
        const response = await attemptOnce(call, settings.timeoutMs, signal);
        scheduler.onSuccess(ticket);
        unreachable.delete(call.endpoint);
        usage.latencyMs += realNow() - started;
        return { outcome: { ok: true, response }, usage, cached: false, counted: true };
      } catch (error) {
        usage.latencyMs += realNow() - started;
        if (signal?.aborted) throw signal.reason ?? error;
        failure = error as JudgeCallError;
        // An answer that was no judgment (a refusal) was billed all the same.
        if (failure.tokens) addTokens(usage, failure.tokens);
      } finally {
        ticket.release();
      }
      const tries = attempt + 1;
      const tooLong = (failure.retryAfterMs ?? 0) > settings.maxRetryAfterMs;
      if (!failure.retryable || tooLong || attempt >= settings.maxRetries) {
        const waitText = tooLong
          ? ` (the endpoint asked to wait ${Math.round((failure.retryAfterMs ?? 0) / 1000)} s, more than maxRetryAfterMs)`
          : "";
        const reason = `${failure.message}${waitText}${tries > 1 ? ` (gave up after ${tries} tries)` : ""}`;
        if (failure.unreachable && tries > 1)
          unreachable.set(call.endpoint, { until: realDateNow() + UNREACHABLE_FOR_MS, reason });
        return { outcome: { ok: false, reason }, usage, cached: false, counted: true };
      }
      usage.retries++;
      if (failure.rateLimited || failure.status === 503 || failure.status === 529) {
        const event: JudgePushBack = { endpoint: call.endpoint };
        if (failure.status !== undefined) event.status = failure.status;
        if (failure.retryAfterMs !== undefined) event.retryAfterMs = failure.retryAfterMs;
        for (const listener of pushBackListeners) listener(event);
      }
      wait.phase = "backoff";
      wait.after = failure.message;
      wait.retryAfterMs = failure.retryAfterMs;
      wait.tryNumber = tries + 1;
      await sleep(backoff(scheduler, ticket, failure, attempt, settings), signal);
      delete wait.after;
      delete wait.retryAfterMs;
    }
  } finally {
    untrack();
  }
}

async function attemptOnce<T>(
  call: EndpointCall<T>,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<T> {
  const timeout = AbortSignal.timeout(clampTimer(timeoutMs));
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  try {
    return await call.send(combined);
  } catch (error) {
    if (signal?.aborted) throw error;
    if (timeout.aborted) {
      throw new JudgeCallError(
        `${call.provider} gave no answer within ${timeoutMs} ms (raise timeoutMs with configureJudges)`,
        { retryable: true, timedOut: true },
      );
    }
    if (error instanceof JudgeCallError) throw error;
    throw new JudgeCallError(`${call.provider} failed: ${errorMessage(error)}`, {
      retryable: false,
      cause: error,
    });
  }
}

// Push-back (429, or 503/529 overloaded) slows the endpoint; the call itself waits the
// Retry-After it was given, else an exponential backoff with jitter.
function backoff(
  scheduler: EndpointScheduler,
  ticket: SchedulerTicket,
  failure: JudgeCallError,
  attempt: number,
  settings: Readonly<JudgeSettings>,
): number {
  // A try that timed out slows the endpoint too: a server that queues calls (a local model
  // with one slot) answers none in time when sent more than it serves.
  if (failure.rateLimited || failure.status === 503 || failure.status === 529 || failure.timedOut)
    scheduler.onRateLimited(ticket, failure.retryAfterMs);
  if (failure.retryAfterMs !== undefined) {
    const wait = failure.retryAfterMs;
    return wait + Math.random() * Math.min(250, wait * 0.1);
  }
  const step = Math.min(settings.retryMaxMs, settings.retryBaseMs * 2 ** attempt);
  return step / 2 + (Math.random() * step) / 2;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    // A huge Retry-After must wait long, not overflow the timer and retry at once.
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, clampTimer(ms));
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
