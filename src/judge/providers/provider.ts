import type { JudgeChatRequest, JudgeChatResponse } from "../chat.js";

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

/** Join a base URL and a path without doubling or dropping the slash. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}
