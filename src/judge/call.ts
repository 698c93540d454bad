import { errorMessage } from "../errors.js";
import { emptyJudgeUsage, type JudgeUsage } from "../eval/record.js";
import { clampTimer } from "../eval/timeout.js";
import { processWide } from "../process-wide.js";
import { answerStore, judgeCacheKey } from "./cache.js";
import { JudgeCallError } from "./call-error.js";
import type { JudgeChatRequest, JudgeChatResponse, JudgeTarget, JudgeTokens } from "./chat.js";
import {
  cacheDirectory,
  type JudgePrice,
  type JudgeSettings,
  judgeSettings,
  onJudgeSettings,
} from "./config.js";
import { attemptSignal, recordJudgeUsage } from "./ledger.js";
import type { JudgeProvider } from "./providers/provider.js";
import { resolveJudge } from "./resolve.js";
import { EndpointScheduler, type SchedulerTicket } from "./scheduler.js";

/** A model string, or a provider with the model it should receive. */
export type JudgeSource = string | { provider: JudgeProvider; model: string };

/**
 * The name a judge goes by in reasons, audits and usage: its model string, or its provider's id
 * and the model it receives; once, when the id names that model already (an AI SDK model's
 * provider is that one model: `ai-sdk:anthropic.messages/claude-haiku-4-5`).
 */
export function judgeSourceName(source: JudgeSource): string {
  if (typeof source === "string") return source;
  const { id } = source.provider;
  return id.endsWith(`:${source.model}`) ? id : `${id}:${source.model}`;
}

/** The outcome of one judge call: an answer (maybe from the cache), or why there is none. */
export type JudgeCallResult =
  | {
      ok: true;
      model: string;
      /** Where the answer came from (a base URL, or a provider's endpoint key). */
      endpoint: string;
      response: JudgeChatResponse;
      cached: boolean;
      usage: JudgeUsage;
    }
  | {
      ok: false;
      model: string;
      kind: "unconfigured" | "failed";
      reason: string;
      usage: JudgeUsage;
    };

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
const inflight = processWide("judge.inflight", () => new Map<string, Promise<Attempted>>());
type Outcome = { ok: true; response: JudgeChatResponse } | { ok: false; reason: string };

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
 * Make one judge call the dependable way: resolve the model (an unconfigured judge never
 * touches the network), answer from the disk cache for temperature-0 requests, else go through
 * the endpoint's scheduler with timeouts and retries. Only answers `accept` approves are
 * cached (or served from the cache), so a transient bad answer is asked again next run.
 * Usage lands in every open ledger.
 * Only an abort of `signal` throws; everything else is a result.
 */
export async function callJudge(
  source: JudgeSource,
  request: JudgeChatRequest,
  options: {
    signal?: AbortSignal;
    /** Whether an answer is usable (parsed and validated); only usable answers are cached. */
    accept?: (response: JudgeChatResponse) => boolean;
    /**
     * The request this answer is cached as (default: this one). A repair turn's usable answer is
     * cached as the first request's, so a later run of the same question finds it at once
     * instead of paying for the unusable first answer again.
     */
    cacheAs?: JudgeChatRequest;
  } = {},
): Promise<JudgeCallResult> {
  const resolved =
    typeof source === "string"
      ? resolveJudge(source)
      : {
          ok: true as const,
          model: judgeSourceName(source),
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
  const { provider, target } = resolved;
  const model: Judged = {
    name: resolved.model,
    endpoint: target.endpoint,
    priceKeys: priceKeys(source, provider, target.model),
  };
  const settings = judgeSettings();
  // A judge called from a scorer that passed no signal still stops with its attempt.
  const signal = options.signal ?? attemptSignal();
  const call = () => callWithRetries(provider, target, request, settings, signal);
  if (!(settings.cache && request.temperature === 0)) return finish(model, await call(), settings);

  const key = judgeCacheKey(target, request);
  const storedAs = options.cacheAs ? judgeCacheKey(target, options.cacheAs) : key;
  const usable = (response: JudgeChatResponse) => options.accept?.(response) ?? true;
  // An identical request already on its way: its answer counts as a cache hit here, when it is
  // one the cache would keep. If its caller aborted it, or it was unusable (as the cache would
  // not serve it), this caller goes on alone.
  const pending = inflight.get(key);
  if (pending) {
    const shared = await pending.catch(() => undefined);
    if (!shared) return finish(model, await call(), settings);
    if (shared.outcome.ok && usable(shared.outcome.response))
      return finish(
        model,
        { outcome: shared.outcome, usage: cachedUsage(), cached: true },
        settings,
      );
    if (shared.outcome.ok) return finish(model, await call(), settings);
    return finish(
      model,
      { outcome: shared.outcome, usage: emptyJudgeUsage(), cached: false },
      settings,
    );
  }
  const work = (async (): Promise<Attempted> => {
    const store = answerStore(cacheDirectory());
    const hit = await store.get(storedAs);
    if (hit && usable(hit))
      return { outcome: { ok: true, response: hit }, usage: cachedUsage(), cached: true };
    const attempted = await call();
    if (attempted.outcome.ok && usable(attempted.outcome.response))
      await store.put(storedAs, target, attempted.outcome.response);
    return attempted;
  })();
  inflight.set(key, work);
  try {
    return finish(model, await work, settings);
  } finally {
    inflight.delete(key);
  }
}

/**
 * What one call came to. `counted`: its call and retries were told to the ledgers as they
 * happened (a real call), so a call the attempt's time limit cut off still counts.
 */
type Attempted = { outcome: Outcome; usage: JudgeUsage; cached: boolean; counted?: boolean };

const cachedUsage = (): JudgeUsage => ({ ...emptyJudgeUsage(), cachedCalls: 1 });

/** Who a call went to: the judge's name, its endpoint, and the names its price may be listed under. */
interface Judged {
  name: string;
  endpoint: string;
  priceKeys: readonly string[];
}

/**
 * The names a price table may list a call's model under, in the order they are looked up: the
 * model string as written (`anthropic/claude-haiku-4.5`), then the provider's names for the
 * model it receives (as written, `claude-haiku-4.5`, then as its API takes it, `claude-haiku-4-5`).
 */
function priceKeys(source: JudgeSource, provider: JudgeProvider, model: string): string[] {
  const names = provider.priceNames?.(model) ?? [model];
  return [...new Set(typeof source === "string" ? [source, ...names] : names)];
}

// Tokens and cost count only real calls; then every open ledger hears about it.
function finish(
  model: Judged,
  attempted: Attempted,
  settings: Readonly<JudgeSettings>,
): JudgeCallResult {
  const { outcome, usage, cached, counted } = attempted;
  if (outcome.ok && !cached) addTokens(usage, outcome.response);
  // Tokens of a refused call are billed like an answer's.
  if (!cached) price(usage, model.priceKeys, settings.prices);
  const { name, endpoint } = model;
  const result: JudgeCallResult = outcome.ok
    ? { ok: true, model: name, endpoint, response: outcome.response, cached, usage }
    : { ok: false, model: name, kind: "failed", reason: outcome.reason, usage };
  recordJudgeUsage(counted ? { ...result.usage, calls: 0, retries: 0 } : result.usage);
  return result;
}

/**
 * Add what a provider said a call used. An answer that did not say (no usage block, or a count
 * left out) is counted in `unreportedCalls`: its tokens are unknown, never taken as 0.
 */
function addTokens(usage: JudgeUsage, tokens: JudgeTokens): void {
  const { inputTokens, outputTokens } = tokens;
  if (isCount(inputTokens)) usage.inputTokens += inputTokens;
  if (isCount(outputTokens)) usage.outputTokens += outputTokens;
  if (!isCount(inputTokens) || !isCount(outputTokens))
    usage.unreportedCalls = (usage.unreportedCalls ?? 0) + 1;
}

const isCount = (n: unknown): n is number => typeof n === "number" && Number.isFinite(n) && n >= 0;

/**
 * The cost of a call's tokens from the first of its price keys the table lists. With a table
 * that lists none of them, the call is counted as unpriced, under its model string, so a cost
 * summed over calls is shown as the lower bound it is, never as the whole.
 */
function price(
  usage: JudgeUsage,
  keys: readonly string[],
  prices: Readonly<Record<string, JudgePrice>>,
): void {
  const { inputTokens, outputTokens } = usage;
  // A call whose usage was not reported is looked up too: an unpriced model is named all the
  // same. Its cost is that of the tokens reported (none: no cost), which `unreportedCalls` says
  // is a lower bound.
  if (inputTokens + outputTokens === 0 && !usage.unreportedCalls) return;
  const key = keys.find((name) => Object.hasOwn(prices, name));
  const found = key === undefined ? undefined : prices[key];
  if (found) {
    if (inputTokens + outputTokens === 0) return;
    usage.costUsd = (inputTokens * found.inputPerMTok + outputTokens * found.outputPerMTok) / 1e6;
    return;
  }
  // Without a table no cost is shown at all: nothing is partial.
  if (Object.keys(prices).length === 0) return;
  usage.unpriced = { calls: 1, inputTokens, outputTokens, models: keys.slice(0, 1) };
}

async function callWithRetries(
  provider: JudgeProvider,
  target: JudgeTarget,
  request: JudgeChatRequest,
  settings: Readonly<JudgeSettings>,
  signal: AbortSignal | undefined,
): Promise<Attempted> {
  const down = unreachable.get(target.endpoint);
  if (down && Date.now() < down.until) {
    const seconds = Math.ceil((down.until - Date.now()) / 1000);
    return {
      outcome: {
        ok: false,
        reason: `${down.reason}; not tried again for ${seconds} s (the endpoint could not be reached by an earlier call)`,
      },
      usage: emptyJudgeUsage(),
      cached: false,
    };
  }
  const scheduler = schedulerFor(target.endpoint);
  const usage: JudgeUsage = { ...emptyJudgeUsage(), calls: 1 };
  for (let attempt = 0; ; attempt++) {
    const ticket = await scheduler.acquire(signal, { retry: attempt > 0 });
    // Told as each try is sent: the attempt's time limit may cut it off, and it was made all the same.
    recordJudgeUsage(attempt === 0 ? { calls: 1 } : { retries: 1 });
    const started = performance.now();
    let failure: JudgeCallError;
    try {
      const response = await attemptOnce(provider, target, request, settings.timeoutMs, signal);
      scheduler.onSuccess(ticket);
      unreachable.delete(target.endpoint);
      usage.latencyMs += performance.now() - started;
      return {
        outcome: { ok: true, response },
        usage,
        cached: false,
        counted: true,
      };
    } catch (error) {
      usage.latencyMs += performance.now() - started;
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
      const wait = tooLong
        ? ` (the endpoint asked to wait ${Math.round((failure.retryAfterMs ?? 0) / 1000)} s, more than maxRetryAfterMs)`
        : "";
      const reason = `${failure.message}${wait}${tries > 1 ? ` (gave up after ${tries} tries)` : ""}`;
      if (failure.unreachable && tries > 1)
        unreachable.set(target.endpoint, { until: Date.now() + UNREACHABLE_FOR_MS, reason });
      return { outcome: { ok: false, reason }, usage, cached: false, counted: true };
    }
    usage.retries++;
    if (failure.rateLimited || failure.status === 503 || failure.status === 529) {
      const event: JudgePushBack = { endpoint: target.endpoint };
      if (failure.status !== undefined) event.status = failure.status;
      if (failure.retryAfterMs !== undefined) event.retryAfterMs = failure.retryAfterMs;
      for (const listener of pushBackListeners) listener(event);
    }
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
  const timeout = AbortSignal.timeout(clampTimer(timeoutMs));
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

// Push-back (429, or 503/529 overloaded) slows the endpoint; the call itself waits the
// Retry-After it was given, else an exponential backoff with jitter.
function backoff(
  scheduler: EndpointScheduler,
  ticket: SchedulerTicket,
  failure: JudgeCallError,
  attempt: number,
  settings: Readonly<JudgeSettings>,
): number {
  if (failure.rateLimited || failure.status === 503 || failure.status === 529)
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
