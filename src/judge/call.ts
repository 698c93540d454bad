import { AuthoringError } from "../errors.js";
import { emptyJudgeUsage, type JudgeUsage } from "../eval/record.js";
import { processWide } from "../process-wide.js";
import { valueKind } from "../required.js";
import { answerStore, judgeCacheKey } from "./cache.js";
import { settleUsage } from "./call-usage.js";
import type { JudgeChatRequest, JudgeChatResponse } from "./chat.js";
import { cacheDirectory, type JudgeSettings, judgeSettings } from "./config.js";
import { attemptSignal } from "./ledger.js";
import type { JudgeProvider } from "./providers/provider.js";
import { resolveJudge } from "./resolve.js";
import { callWithRetries, type Attempted as RetriedCall } from "./retries.js";

/** A model string, or a provider with the model it should receive. */
export type JudgeSource = string | { provider: JudgeProvider; model: string };

/**
 * Refuse a judge model that is neither a model string nor `{ provider, model }` (left out, it
 * would fail as a TypeError far from the call that took it). `where` is the function, `field`
 * its parameter.
 * @example
 * requireJudgeSource("expectations", "model", undefined);
 * // AuthoringError: expectations: `model` must be a model string such as "openai/gpt-4.1-mini" or { provider, model }; got undefined
 */
export function requireJudgeSource(
  where: string,
  field: string,
  source: unknown,
): asserts source is JudgeSource {
  // A model string, even empty, is resolveJudge's to read: an empty one is a judge not configured
  // (`JUDGE_MODEL ?? ""`), reported unavailable where it is called.
  if (typeof source === "string") return;
  if (typeof source === "object" && source !== null) {
    const { provider, model } = source as { provider?: Partial<JudgeProvider>; model?: unknown };
    if (
      typeof provider === "object" &&
      provider !== null &&
      typeof provider.complete === "function" &&
      typeof model === "string" &&
      model !== ""
    )
      return;
  }
  throw new AuthoringError(
    `${where}: \`${field}\` must be a model string such as "openai/gpt-4.1-mini" or { provider, model } (a judge provider and its model's name); got ${valueKind(source)}`,
  );
}

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

const inflight = processWide("judge.inflight", () => new Map<string, Promise<Attempted>>());

/**
 * Make one judge call the dependable way: resolve the model (an unconfigured judge never
 * touches the network), answer from the disk cache for temperature-0 requests, else go through
 * the endpoint's scheduler with timeouts and retries. Only answers `accept` approves are
 * cached (or served from the cache), so a transient bad answer is asked again next run, and
 * none the server gave only without the temperature (`withoutTemperature`).
 * Usage lands in every open ledger.
 * Only an abort of `signal` throws; everything else is a result.
 */
export async function callJudge(
  source: JudgeSource,
  request: JudgeChatRequest,
  options: {
    signal?: AbortSignal | undefined;
    /** Whether an answer is usable (parsed and validated); only usable answers are cached. */
    accept?: ((response: JudgeChatResponse) => boolean) | undefined;
    /**
     * The request this answer is cached as (default: this one). A repair turn's usable answer is
     * cached as the first request's, so a later run of the same question finds it at once
     * instead of paying for the unusable first answer again.
     */
    cacheAs?: JudgeChatRequest | undefined;
  } = {},
): Promise<JudgeCallResult> {
  requireJudgeSource("callJudge", "model", source);
  const resolved = resolveSource(source);
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
  const asked = withOutputFloor(request, settings.maxOutputTokens);
  // A judge called from a scorer that passed no signal still stops with its attempt.
  const signal = options.signal ?? attemptSignal();
  const call = () =>
    callWithRetries(
      {
        endpoint: target.endpoint,
        provider: target.provider,
        who: `judge "${model.name}" at ${target.endpoint}`,
        send: (tried) => provider.complete(asked, { model: target.model, signal: tried }),
      },
      settings,
      signal,
    );
  if (!(settings.cache && asked.temperature === 0)) return finish(model, await call(), settings);

  const key = judgeCacheKey(target, asked);
  const storedAs = options.cacheAs
    ? judgeCacheKey(target, withOutputFloor(options.cacheAs, settings.maxOutputTokens))
    : key;
  // Kept (and shared) only when usable and asked at temperature 0: an answer the server gave
  // only once the temperature was left out is the model's default temperature's.
  const cacheable = (response: JudgeChatResponse) =>
    response.withoutTemperature !== true && (options.accept?.(response) ?? true);
  // An identical request already on its way: its answer counts as a cache hit here, when it is
  // one the cache would keep. If its caller aborted it, or the cache would not keep it (unusable,
  // or sent without its temperature), this caller goes on alone.
  const pending = inflight.get(key);
  if (pending) {
    const shared = await pending.catch(() => undefined);
    if (!shared) return finish(model, await call(), settings);
    if (shared.outcome.ok && cacheable(shared.outcome.response))
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
    if (hit && cacheable(hit))
      return { outcome: { ok: true, response: hit }, usage: cachedUsage(), cached: true };
    const attempted = await call();
    if (attempted.outcome.ok && cacheable(attempted.outcome.response))
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

type Attempted = RetriedCall<JudgeChatResponse>;

/** The provider and target of a judge given by name (resolved) or as a provider and model. */
function resolveSource(source: JudgeSource) {
  if (typeof source === "string") return resolveJudge(source);
  return {
    ok: true as const,
    model: judgeSourceName(source),
    provider: source.provider,
    target: {
      provider: source.provider.id,
      model: source.model,
      endpoint: source.provider.endpoint ?? source.provider.id,
    },
  };
}

/**
 * The request as sent: with at least `floor` output tokens (configureJudges({ maxOutputTokens })),
 * never fewer than its own.
 */
export function withOutputFloor(
  request: JudgeChatRequest,
  floor = judgeSettings().maxOutputTokens,
): JudgeChatRequest {
  return floor !== undefined && floor > request.maxOutputTokens
    ? { ...request, maxOutputTokens: floor }
    : request;
}

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

/** The call's result, its usage settled and told to every open ledger. */
function finish(
  model: Judged,
  attempted: Attempted,
  settings: Readonly<JudgeSettings>,
): JudgeCallResult {
  const usage = settleUsage(attempted, model.priceKeys, settings.prices);
  const { outcome, cached } = attempted;
  const { name, endpoint } = model;
  return outcome.ok
    ? { ok: true, model: name, endpoint, response: outcome.response, cached, usage }
    : { ok: false, model: name, kind: "failed", reason: outcome.reason, usage };
}
