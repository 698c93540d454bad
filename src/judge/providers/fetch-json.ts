import { httpError, JudgeCallError } from "../call-error.js";
import { judgeSettings } from "../config.js";
import { hostFetch } from "../host-fetch.js";
import { splitBaseUrl } from "./provider.js";
import { readCapped } from "./read-capped.js";
import { maskSecrets, maskStrings, sentSecrets } from "./secrets.js";

/** What {@link postJson} says and reads beyond the defaults. */
export interface PostJsonOptions {
  /** Where the API key came from, named after a 401 or 403 (see `statusHint`). */
  apiKey?: string;
  /** The largest body read, bytes (default maxResponseBytes). */
  maxBytes?: number;
}

/**
 * POST a JSON body and read a JSON answer. Non-2xx answers, dropped connections and
 * unreadable bodies become classified JudgeCallErrors; an abort is rethrown as is. Every secret
 * the request sent (`sentSecrets`) is masked in what the server says, its answer included.
 */
export async function postJson(
  url: string,
  headers: Record<string, string>,
  body: unknown,
  signal: AbortSignal,
  where: string,
  options: PostJsonOptions = {},
): Promise<unknown> {
  const secrets = sentSecrets(url, headers);
  const mask = (text: string) => maskSecrets(text, secrets);
  let response: Response;
  try {
    response = await hostFetch()(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", ...headers },
      body: JSON.stringify(body),
      signal,
      // A judge or embedding API never redirects a POST: followed, the redirect would carry the
      // key and the headers to another server, and its answer be cached as this endpoint's.
      redirect: "manual",
    });
  } catch (error) {
    if (signal.aborted) throw signal.reason ?? error;
    if (refusedPort(error)) throw refusedPortError(url, where, error);
    // Only a connection never made says the endpoint is down (or the URL wrong); one dropped
    // after the request went is a moment's trouble, tried again like a 5xx.
    if (!neverConnected(error))
      throw new JudgeCallError(
        `${where} dropped the connection before answering (${describe(error)})`,
        { retryable: true, cause: error },
      );
    // The retries add "check the base URL" when no try of the call could connect.
    throw new JudgeCallError(`${where} could not be reached (${describe(error)})`, {
      retryable: true,
      unreachable: true,
      cause: error,
    });
  }
  if (redirection(response)) throw await redirectError(response, url, where, mask);
  if (!response.ok) throw await httpError(response, where, options.apiKey, mask);
  if (streamed(response)) {
    await response.body?.cancel().catch(() => undefined);
    // The same request would be streamed again: not worth another try.
    throw new JudgeCallError(
      `${where} answered with an event stream (text/event-stream), not one JSON body, though niceeval asks for none; configure the server or proxy not to stream, or point the judge at an endpoint that answers in one body`,
      { status: response.status, retryable: false },
    );
  }
  const maxBytes = options.maxBytes ?? judgeSettings().maxResponseBytes;
  let text: string;
  try {
    const read = await readCapped(response, maxBytes);
    if (read.over) {
      const size =
        read.declared !== undefined ? `${read.declared} bytes` : `more than ${maxBytes} bytes`;
      throw new JudgeCallError(
        `${where} answered ${size}, over the ${maxBytes}-byte cap on judge answers (raise maxResponseBytes with configureJudges)`,
        { status: response.status, retryable: false },
      );
    }
    text = read.text;
  } catch (error) {
    if (error instanceof JudgeCallError) throw error;
    if (signal.aborted) throw signal.reason ?? error;
    throw new JudgeCallError(`${where} dropped the answer mid-body (${describe(error)})`, {
      retryable: true,
      cause: error,
    });
  }
  try {
    // Every text of the answer is masked: a refusal, an error in the body or the verdict itself
    // may quote what the request sent. A body that holds no secret, nor an escape that could
    // spell one, is not walked (an embedding answer is mostly numbers).
    const answer: unknown = JSON.parse(text);
    const mayQuote = text.includes("\\") || secrets.some((secret) => text.includes(secret));
    return mayQuote ? maskStrings(answer, secrets) : answer;
  } catch {
    throw new JudgeCallError(
      `${where} sent a body that is not JSON (${text.length} bytes): ${mask(text).slice(0, 120)}`,
      {
        status: response.status,
        retryable: true,
      },
    );
  }
}

/** Whether the answer is a redirect (a 3xx; a fetch that hides it says "opaqueredirect"). */
function redirection(response: Response): boolean {
  return response.type === "opaqueredirect" || (response.status >= 300 && response.status < 400);
}

/**
 * A redirect, not followed: the status and where it points (its credentials and keys masked),
 * and what to change if that is where the endpoint is. Not worth another try.
 */
async function redirectError(
  response: Response,
  url: string,
  where: string,
  mask: (text: string) => string,
): Promise<JudgeCallError> {
  await response.body?.cancel().catch(() => undefined);
  const location = response.headers.get("location");
  let target = location ?? "";
  try {
    target = new URL(target, url).href;
  } catch {}
  const status = response.status || "3xx";
  const to = location === null ? "without a Location" : `to ${mask(splitBaseUrl(target).shown)}`;
  return new JudgeCallError(
    `${where} answered HTTP ${status}, a redirect ${to}; niceeval does not follow a redirect of a judge or embedding call (it would send the API key and headers to another server): if the endpoint is meant to be there, set the base URL to it`,
    { ...(response.status ? { status: response.status } : {}), retryable: false },
  );
}

/** Whether fetch refused the URL's port before connecting (one browsers block, such as 6000). */
function refusedPort(error: unknown): boolean {
  const cause = (error as { cause?: unknown } | null)?.cause;
  return cause instanceof Error && cause.message === "bad port";
}

/** The same URL is refused the same way every time: one try, and what to change. */
function refusedPortError(url: string, where: string, error: unknown): JudgeCallError {
  let port = "";
  try {
    port = new URL(url).port;
  } catch {}
  return new JudgeCallError(
    `${where} is on port ${port || "(default)"}, which fetch refuses to connect to (a port browsers block, such as 6000 or 10080); serve the judge on another port`,
    { retryable: false, cause: error },
  );
}

/** Whether the answer is server-sent events rather than one body. */
function streamed(response: Response): boolean {
  return /^\s*text\/event-stream\b/i.test(response.headers.get("content-type") ?? "");
}

/** Codes of a connection that was never made: refused, no such host, no route, TLS refused. */
const NOT_CONNECTED =
  /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|EADDRNOTAVAIL|UND_ERR_CONNECT_TIMEOUT|ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|ERR_SSL_)/;

/**
 * Whether a failed fetch never connected. fetch rejects with "fetch failed" and the socket's
 * error as its cause (an AggregateError of each address tried, when there were several); a
 * cause without a code (an invalid URL) counts as never connected too.
 */
function neverConnected(error: unknown): boolean {
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (!(cause instanceof Error)) return true;
  const codes = [
    (cause as { code?: unknown }).code,
    ...((cause as { errors?: unknown[] }).errors ?? []).map((e) => (e as { code?: unknown })?.code),
  ].filter((code): code is string => typeof code === "string");
  return codes.length === 0 || codes.some((code) => NOT_CONNECTED.test(code));
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
  }
  return String(error);
}
