import { realDateNow } from "../clock.js";
import type { JudgeTokens } from "./chat.js";
import { readCapped } from "./providers/read-capped.js";

/** A failed call to a judge endpoint, classified for the retry loop. */
export class JudgeCallError extends Error {
  /** HTTP status, when the endpoint answered. */
  readonly status: number | undefined;
  /** Worth another try (429, 5xx, 529, timeouts, dropped connections). */
  readonly retryable: boolean;
  /** The wait the endpoint asked for (Retry-After / retry-after-ms), in ms. */
  readonly retryAfterMs: number | undefined;
  /** The endpoint said "too many requests" (drives adaptive concurrency). */
  readonly rateLimited: boolean;
  /** No answer came because no connection could be made (refused, unknown host, TLS). */
  readonly unreachable: boolean;
  /** No answer came within the try's time limit (the endpoint may be queueing calls). */
  readonly timedOut: boolean;
  /**
   * What the endpoint billed for an answer that was no judgment (a refusal), in tokens; a count
   * it did not report is absent.
   */
  readonly tokens: JudgeTokens | undefined;
  constructor(
    message: string,
    details: {
      status?: number | undefined;
      retryable: boolean;
      retryAfterMs?: number | undefined;
      rateLimited?: boolean | undefined;
      unreachable?: boolean | undefined;
      timedOut?: boolean | undefined;
      tokens?: JudgeTokens | undefined;
      cause?: unknown;
    },
  ) {
    super(message, details.cause !== undefined ? { cause: details.cause } : undefined);
    this.name = "JudgeCallError";
    this.status = details.status;
    this.retryable = details.retryable;
    this.retryAfterMs = details.retryAfterMs;
    this.rateLimited = details.rateLimited ?? false;
    this.unreachable = details.unreachable ?? false;
    this.timedOut = details.timedOut ?? false;
    this.tokens = details.tokens;
  }
}

// Statuses that mean "try again later": request timeout, conflict, too early, rate limit; and any
// server trouble (5xx, a proxy's 520–524 too) but a method or HTTP version it will never take.
const RETRYABLE_STATUS = new Set([408, 409, 425, 429]);
const FINAL_SERVER_STATUS = new Set([501, 505]);
/** Whether an HTTP status (or a status-like error code) is worth another try. */
export function retryableStatus(status: number): boolean {
  if (status >= 500 && status <= 599) return !FINAL_SERVER_STATUS.has(status);
  return RETRYABLE_STATUS.has(status);
}

// Rate-limit answers that will not clear by waiting (spent quota): retrying only burns time.
const TERMINAL_CODES = new Set([
  "insufficient_quota",
  "enforced_spend_limit_reached",
  "billing_hard_limit_reached",
]);

/** Parse `retry-after-ms`, or `Retry-After` as seconds or an HTTP date, into ms. */
export function parseRetryAfter(headers: Headers, now = realDateNow()): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "" && Number.isFinite(Number(ms)))
    return Math.max(0, Number(ms));
  const value = headers.get("retry-after");
  if (value === null || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Turn a non-2xx response into a classified error naming the endpoint and the provider's message;
 * `apiKey` says where the key sent came from, for a 401 or 403. `mask` takes the secrets the
 * request sent out of what the server said (a 401 that quotes the key it refused).
 */
export async function httpError(
  response: Response,
  where: string,
  apiKey?: string,
  mask: (text: string) => string = (text) => text,
): Promise<JudgeCallError> {
  // An error body is only read for its message: the first 64 KiB are plenty.
  const read = await readCapped(response, 64 * 1024).catch(() => undefined);
  // Masked before the message is cut from it (a key cut in two would not be found), and the
  // message again once parsed (a key the JSON escaped).
  const body = read && !read.over ? mask(read.text) : "";
  const found = providerError(body).message;
  const message = found === undefined ? undefined : mask(found);
  const status = response.status;
  const terminal = spentQuota(body);
  const retryAfterMs = parseRetryAfter(response.headers);
  return new JudgeCallError(
    `${where} answered HTTP ${status}${message ? `: ${message}` : ""}${statusHint(status, apiKey)}`,
    {
      status,
      retryable: retryableStatus(status) && !terminal,
      rateLimited: status === 429 && !terminal,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    },
  );
}

/**
 * Whether an error body says the account's quota or spend limit is spent (`insufficient_quota`…):
 * a 429 that waiting will not clear, so not retried.
 */
export function spentQuota(body: string): boolean {
  const { code } = providerError(body);
  return code !== undefined && TERMINAL_CODES.has(code);
}

// Both protocols wrap errors as { error: { message, type, code? } }; Anthropic adds details.error_code.
function providerError(body: string): { message?: string; code?: string } {
  try {
    const parsed = JSON.parse(body) as {
      error?: {
        message?: unknown;
        type?: unknown;
        code?: unknown;
        details?: { error_code?: unknown };
      };
    };
    const error = parsed.error;
    if (error && typeof error === "object") {
      const code = [error.details?.error_code, error.code, error.type].find(
        (c) => typeof c === "string",
      ) as string | undefined;
      const message = typeof error.message === "string" ? error.message : undefined;
      return {
        ...(message !== undefined ? { message } : {}),
        ...(code !== undefined ? { code } : {}),
      };
    }
  } catch {
    // Not JSON: fall through to the raw text.
  }
  const trimmed = body.trim().slice(0, 300);
  return trimmed ? { message: trimmed } : {};
}

/** What to check after an HTTP status that settings explain; `key`: where the API key comes from. */
export function statusHint(status: number, key?: string): string {
  if (status === 401 || status === 403) return ` (check ${key ?? "the API key the judge uses"})`;
  if (status === 404) return " (check the model name and the base URL)";
  return "";
}

/**
 * Where an API key came from, as a 401 or 403 names it (never the key itself): the environment
 * variable or the option that gave it, or that none was sent.
 */
export function apiKeySource(sent: boolean, from: string | undefined, option: string): string {
  if (sent) return from ? `the API key in ${from}` : `the ${option}`;
  return from
    ? `${from}: it is not set, so no API key was sent`
    : `the ${option}: none was given, so no API key was sent`;
}

/**
 * An error sent in a 200's body instead of an answer (`{ error: { code, message } }`, as
 * OpenRouter sends once the model failed after the request was accepted): its message and code
 * named; worth another try when its code is a status worth one, or when it has none, unless
 * `retryable` says otherwise (a provider that names the kind of error). `tokens`: what the
 * answer was billed for, when it said.
 */
export function errorInBody(
  failure: unknown,
  where: string,
  details: { retryable?: boolean | undefined; tokens?: JudgeTokens | undefined } = {},
): JudgeCallError {
  const { message, code } = (failure ?? {}) as { message?: unknown; code?: unknown };
  const text = typeof message === "string" && message ? message : JSON.stringify(failure);
  const status = typeof code === "number" && Number.isInteger(code) ? code : undefined;
  return new JudgeCallError(
    `${where} answered HTTP 200 with an error instead of an answer: ${text.slice(0, 300)}${code !== undefined ? ` (code ${JSON.stringify(code)})` : ""}`,
    {
      retryable: details.retryable ?? (status === undefined || retryableStatus(status)),
      tokens: details.tokens,
    },
  );
}
