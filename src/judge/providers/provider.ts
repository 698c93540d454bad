import { AuthoringError } from "../../errors.js";
import { redactUrl } from "../../redact-url.js";
import { valueKind } from "../../required.js";
import type { JudgeChatRequest, JudgeChatResponse } from "../chat.js";
import { maskQueryKeys } from "./secrets.js";

/**
 * Something that can answer a judge request: a wire protocol plus an endpoint.
 * Throw a JudgeCallError (retryable or not) when the call fails.
 */
export interface JudgeProvider {
  readonly kind: "judge-provider";
  /** Names the protocol and endpoint in reports and cache keys, e.g. `anthropic@https://api.anthropic.com`. */
  readonly id: string;
  /** Calls sharing this key share one scheduler (default: the id). */
  readonly endpoint?: string | undefined;
  /**
   * The names a price table may list `model` under, looked up after the judge's model string
   * (default: `model` alone). Anthropic's add the name its API receives (`claude-haiku-4-5`).
   */
  priceNames?: ((model: string) => readonly string[]) | undefined;
  complete(
    request: JudgeChatRequest,
    context: { model: string; signal: AbortSignal },
  ): Promise<JudgeChatResponse>;
}

/**
 * Join a base URL and a path without doubling or dropping the slash; a query string or fragment
 * the base carries (Azure OpenAI's `?api-version=…`) stays after the joined path.
 */
export function joinUrl(base: string, path: string): string {
  const cut = base.search(/[?#]/);
  const [root, tail] = cut === -1 ? [base, ""] : [base.slice(0, cut), base.slice(cut)];
  return `${root.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}${tail}`;
}

/** A base URL as fetch takes it, as messages show it, and the basic auth its user part made. */
export interface SplitBaseUrl {
  /** Without a user or password (fetch refuses a URL that has them); else as given. */
  url: string;
  /** As reasons, ids and cache entries name it: its password masked. */
  shown: string;
  /** `Basic …` of the URL's user and password, when it had them. */
  authorization?: string;
}

/**
 * Take the user and password out of a base URL (`https://user:pass@gateway/v1`) and make them a
 * basic-auth header, as curl and most HTTP clients do. A URL without them is left exactly as
 * given, so the ids and cache keys made of it do not change.
 */
export function splitBaseUrl(baseURL: string): SplitBaseUrl {
  let parsed: URL;
  try {
    parsed = new URL(baseURL);
  } catch {
    return { url: baseURL, shown: redactUrl(baseURL) };
  }
  if (!parsed.username && !parsed.password) return { url: baseURL, shown: maskQueryKeys(baseURL) };
  const user = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
  // A user part alone (`https://TOKEN@host/v1`) is the secret itself.
  const shown = maskQueryKeys(
    parsed.password ? redactUrl(baseURL) : baseURL.replace(`${parsed.username}@`, "***@"),
  );
  parsed.username = "";
  parsed.password = "";
  return {
    url: parsed.href,
    shown,
    authorization: `Basic ${Buffer.from(user, "utf8").toString("base64")}`,
  };
}

/** Whether `headers` set an Authorization header already (any case). */
export function hasAuthorization(headers: Readonly<Record<string, string>> | undefined): boolean {
  return Object.keys(headers ?? {}).some((name) => name.toLowerCase() === "authorization");
}

/**
 * What is wrong with a base URL that is not an http(s) URL (`localhost:11434/v1`, which fetch
 * cannot call), said after its name: `is "…", which is not an http(s) URL: …`; undefined when
 * it is one.
 */
export function baseUrlProblem(baseURL: string): string | undefined {
  let protocol: string | undefined;
  try {
    protocol = new URL(baseURL).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol === "http:" || protocol === "https:") return undefined;
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(baseURL);
  const advice = scheme
    ? "use http:// or https://"
    : `write it with its scheme, such as ${JSON.stringify(`http://${baseURL}`)}`;
  return `is ${JSON.stringify(redactUrl(baseURL))}, which is not an http(s) URL: ${advice}`;
}

/** Refuse, when a provider is made, a base URL that is not an http(s) URL, naming the option. */
export function requireBaseUrl(where: string, baseURL: unknown): void {
  if (typeof baseURL !== "string")
    throw new AuthoringError(
      `${where} must be the endpoint's base URL, a string such as "http://localhost:11434/v1"; got ${valueKind(baseURL)}`,
    );
  const problem = baseUrlProblem(baseURL);
  if (problem) throw new AuthoringError(`${where} ${problem}`);
}
