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
 * Endpoints no try of a call could connect to: until when new calls fail at once, and why. A
 * mistyped base URL or a server that is down then costs one call's retries, not every
 * judgment's; a call some of whose tries got an answer marks nothing.
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

/**
 * Tell the listeners of {@link onJudgePushBack} of a push-back: one a judge call here got, or one
 * an eval process this one supervises told it of (its judges are this process's attempts').
 */
export function judgePushedBack(event: JudgePushBack): void {
  for (const listener of pushBackListeners) listener(event);
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
  /** How each failed try of this call failed, in order. */
  const failed: JudgeCallError[] = [];
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
        failed.push(failure);
        // An answer that was no judgment (a refusal) was billed all the same.
        if (failure.tokens) addTokens(usage, failure.tokens);
      } finally {
        ticket.release();
      }
      const tries = attempt + 1;
      const tooLong = (failure.retryAfterMs ?? 0) > settings.maxRetryAfterMs;
      if (!failure.retryable || tooLong || attempt >= settings.maxRetries) {
        const outcome = { ok: false as const, reason: giveUp(call.endpoint, failed, tooLong) };
        return { outcome, usage, cached: false, counted: true };
      }
      usage.retries++;
      if (failure.rateLimited || failure.status === 503 || failure.status === 529) {
        const event: JudgePushBack = { endpoint: call.endpoint };
        if (failure.status !== undefined) event.status = failure.status;
        if (failure.retryAfterMs !== undefined) event.retryAfterMs = failure.retryAfterMs;
        judgePushedBack(event);
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

/**
 * Why a call failed, once its last try did: that try's error, what the tries got when they did
 * not all fail alike (`HTTP 503 ×3, then no connection`), and, when no try could connect at all,
 * to check the base URL. Such an endpoint (after more than one try) is not tried again for
 * {@link UNREACHABLE_FOR_MS}; one that answered any try is, as it was up a moment ago.
 */
function giveUp(endpoint: string, failed: readonly JudgeCallError[], tooLong: boolean): string {
  const last = failed[failed.length - 1] as JudgeCallError;
  const noneConnected = failed.every((failure) => failure.unreachable);
  const advice = noneConnected ? "; check the base URL" : "";
  const waitText = tooLong
    ? ` (the endpoint asked to wait ${Math.round((last.retryAfterMs ?? 0) / 1000)} s, more than maxRetryAfterMs)`
    : "";
  const reason = `${last.message}${advice}${waitText}${triesText(failed)}`;
  if (noneConnected && failed.length > 1)
    unreachable.set(endpoint, { until: realDateNow() + UNREACHABLE_FOR_MS, reason });
  return reason;
}

/** ` (gave up after 4 tries: HTTP 503 ×3, then no connection)`; the list only when tries differ. */
function triesText(failed: readonly JudgeCallError[]): string {
  if (failed.length < 2) return "";
  const runs: { got: string; count: number }[] = [];
  for (const failure of failed) {
    const got = tryGot(failure);
    const run = runs[runs.length - 1];
    if (run?.got === got) run.count++;
    else runs.push({ got, count: 1 });
  }
  const list = runs.map(({ got, count }) => (count > 1 ? `${got} ×${count}` : got));
  return ` (gave up after ${failed.length} tries${runs.length > 1 ? `: ${list.join(", then ")}` : ""})`;
}

/** What one failed try got, in a few words. */
function tryGot(failure: JudgeCallError): string {
  if (failure.unreachable) return "no connection";
  if (failure.timedOut) return "no answer in time";
  if (failure.status !== undefined && failure.status !== 200) return `HTTP ${failure.status}`;
  return "no usable answer";
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
