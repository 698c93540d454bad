import { errorMessage } from "../errors.js";
import { emptyJudgeUsage, type JudgeUsage } from "../eval/record.js";
import { judgeCacheKey, readCachedAnswer, writeCachedAnswer } from "./cache.js";
import { JudgeCallError } from "./call-error.js";
import type { JudgeChatRequest, JudgeChatResponse, JudgeTarget } from "./chat.js";
import { cacheDirectory, type JudgeSettings, judgeSettings, onJudgeSettings } from "./config.js";
import { recordJudgeUsage } from "./ledger.js";
import type { JudgeProvider } from "./providers/provider.js";
import { resolveJudge } from "./resolve.js";
import { EndpointScheduler, type SchedulerTicket } from "./scheduler.js";

/** A model string, or a provider with the model it should receive. */
export type JudgeSource = string | { provider: JudgeProvider; model: string };

/** The outcome of one judge call: an answer (maybe from the cache), or why there is none. */
export type JudgeCallResult =
  | { ok: true; model: string; response: JudgeChatResponse; cached: boolean; usage: JudgeUsage }
  | {
      ok: false;
      model: string;
      kind: "unconfigured" | "failed";
      reason: string;
      usage: JudgeUsage;
    };

const schedulers = new Map<string, EndpointScheduler>();
const inflight = new Map<string, Promise<Outcome>>();
type Outcome = { ok: true; response: JudgeChatResponse } | { ok: false; reason: string };

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
 * Make one judge call the dependable way: resolve the model (an unconfigured judge never
 * touches the network), answer from the disk cache for temperature-0 requests, else go through
 * the endpoint's scheduler with timeouts and retries. Usage lands in every open ledger.
 * Only an abort of `signal` throws; everything else is a result.
 */
export async function callJudge(
  source: JudgeSource,
  request: JudgeChatRequest,
  options: { signal?: AbortSignal } = {},
): Promise<JudgeCallResult> {
  const resolved =
    typeof source === "string"
      ? resolveJudge(source)
      : {
          ok: true as const,
          model: `${source.provider.id}:${source.model}`,
          provider: source.provider,
          target: {
            provider: source.provider.id,
            model: source.model,
            endpoint: source.provider.endpoint ?? source.provider.id,
          },
        };
  if (!resolved.ok)
    return {
      ok: false,
      model: resolved.model,
      kind: "unconfigured",
      reason: resolved.reason,
      usage: emptyJudgeUsage(),
    };
  const { provider, target, model } = resolved;
  const settings = judgeSettings();
  const cacheable = settings.cache && request.temperature === 0;
  const key = judgeCacheKey(target, request);

  if (cacheable) {
    const shared = inflight.get(key);
    const hit = shared ? await shared : await cachedOutcome(key);
    if (hit?.ok)
      return finish({
        ok: true,
        model,
        response: hit.response,
        cached: true,
        usage: { ...emptyJudgeUsage(), cachedCalls: 1 },
      });
  }
  const pending = callWithRetries(provider, target, request, settings, options.signal);
  const outcome = pending.then(({ outcome }) => outcome);
  if (cacheable) {
    inflight.set(key, outcome);
    void outcome.finally(() => inflight.delete(key)).catch(() => {});
  }
  const { outcome: result, usage } = await pending;
  if (!result.ok) return finish({ ok: false, model, kind: "failed", reason: result.reason, usage });
  usage.inputTokens = result.response.inputTokens;
  usage.outputTokens = result.response.outputTokens;
  const price = settings.prices[model] ?? settings.prices[target.model];
  if (price) {
    usage.costUsd =
      (result.response.inputTokens * price.inputPerMTok +
        result.response.outputTokens * price.outputPerMTok) /
      1e6;
  }
  if (cacheable) await writeCachedAnswer(cacheDirectory(), key, target, result.response);
  return finish({ ok: true, model, response: result.response, cached: false, usage });
}

function finish(result: JudgeCallResult): JudgeCallResult {
  recordJudgeUsage(result.usage);
  return result;
}

async function cachedOutcome(key: string): Promise<Outcome | undefined> {
  const response = await readCachedAnswer(cacheDirectory(), key);
  return response ? { ok: true, response } : undefined;
}

async function callWithRetries(
  provider: JudgeProvider,
  target: JudgeTarget,
  request: JudgeChatRequest,
  settings: Readonly<JudgeSettings>,
  signal: AbortSignal | undefined,
): Promise<{ outcome: Outcome; usage: JudgeUsage }> {
  const scheduler = schedulerFor(target.endpoint);
  const usage: JudgeUsage = { ...emptyJudgeUsage(), calls: 1 };
  for (let attempt = 0; ; attempt++) {
    const ticket = await scheduler.acquire(signal);
    const started = performance.now();
    let failure: JudgeCallError;
    try {
      const response = await attemptOnce(provider, target, request, settings.timeoutMs, signal);
      scheduler.onSuccess();
      usage.latencyMs += performance.now() - started;
      return { outcome: { ok: true, response }, usage };
    } catch (error) {
      usage.latencyMs += performance.now() - started;
      if (signal?.aborted) throw signal.reason ?? error;
      failure = error as JudgeCallError;
    } finally {
      ticket.release();
    }
    const tries = attempt + 1;
    if (!failure.retryable || attempt >= settings.maxRetries) {
      const reason = `${failure.message}${tries > 1 ? ` (gave up after ${tries} tries)` : ""}`;
      return { outcome: { ok: false, reason }, usage };
    }
    usage.retries++;
    await sleep(backoff(scheduler, ticket, failure, attempt, settings), signal);
  }
}

async function attemptOnce(
  provider: JudgeProvider,
  target: JudgeTarget,
  request: JudgeChatRequest,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<JudgeChatResponse> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  try {
    return await provider.complete(request, { model: target.model, signal: combined });
  } catch (error) {
    if (signal?.aborted) throw error;
    if (timeout.aborted) {
      throw new JudgeCallError(
        `${target.provider} gave no answer within ${timeoutMs} ms (raise timeoutMs with configureJudges)`,
        {
          retryable: true,
        },
      );
    }
    if (error instanceof JudgeCallError) throw error;
    throw new JudgeCallError(`${target.provider} failed: ${errorMessage(error)}`, {
      retryable: false,
      cause: error,
    });
  }
}

// Exponential backoff with jitter; a Retry-After from a 429/503/529 also pauses the whole endpoint.
function backoff(
  scheduler: EndpointScheduler,
  ticket: SchedulerTicket,
  failure: JudgeCallError,
  attempt: number,
  settings: Readonly<JudgeSettings>,
): number {
  if (failure.rateLimited) scheduler.onRateLimited(ticket);
  if (failure.retryAfterMs !== undefined) {
    const wait = Math.min(failure.retryAfterMs, settings.retryMaxMs * 4);
    if (failure.status === 429 || failure.status === 503 || failure.status === 529)
      scheduler.pause(wait);
    return wait + Math.random() * Math.min(250, wait * 0.1);
  }
  const step = Math.min(settings.retryMaxMs, settings.retryBaseMs * 2 ** attempt);
  return step / 2 + (Math.random() * step) / 2;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
