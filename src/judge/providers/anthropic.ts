import { type KnownKeys, refuseUnknownKeys } from "../../known-keys.js";
import { requireOptions } from "../../required.js";
import { apiKeySource, errorInBody, JudgeCallError } from "../call-error.js";
import type { JudgeChatRequest, JudgeChatResponse } from "../chat.js";
import { markJudgePossible } from "../ledger.js";
import { postJson } from "./fetch-json.js";
import {
  hasAuthorization,
  type JudgeProvider,
  joinUrl,
  requireBaseUrl,
  splitBaseUrl,
} from "./provider.js";

const OPTION_KEYS = {
  apiKey: true,
  apiKeyFrom: true,
  baseURL: true,
  headers: true,
} satisfies KnownKeys<AnthropicOptions>;

/** The Messages API version niceeval speaks. */
export const ANTHROPIC_VERSION = "2023-06-01";

/** Options of {@link anthropicProvider}. */
export interface AnthropicOptions {
  apiKey: string;
  /**
   * Where `apiKey` came from, named (never the key) when the endpoint refuses it with a 401 or
   * 403: an environment variable such as `"MY_CLAUDE_KEY"`. Default: the `apiKey` option.
   */
  apiKeyFrom?: string | undefined;
  /** Default `https://api.anthropic.com` (the provider appends `/v1/messages`). */
  baseURL?: string | undefined;
  headers?: Record<string, string> | undefined;
}

interface MessagesAnswer {
  content?: (
    | { type: "text"; text?: string }
    | { type: "tool_use"; name?: string; input?: unknown }
    | { type: string }
  )[];
  stop_reason?: string;
  usage?: { input_tokens?: number; output_tokens?: number };
  /** An error sent with a 200 (`{ type: "error", error: { type, message } }`, or a proxy's). */
  type?: string;
  error?: unknown;
}

/** The kinds of error the Messages API names, and whether each is worth another try. */
const ERROR_KINDS: Readonly<Record<string, boolean>> = {
  invalid_request_error: false,
  authentication_error: false,
  permission_error: false,
  not_found_error: false,
  request_too_large: false,
  rate_limit_error: true,
  api_error: true,
  overloaded_error: true,
};

/**
 * A judge provider speaking the Anthropic Messages API; the answer is a forced tool call
 * whose input schema is the verdict's schema.
 * @example
 * registerJudgeProvider("claude", anthropicProvider({ apiKey: process.env.MY_KEY ?? "" }));
 */
export function anthropicProvider(options: AnthropicOptions): JudgeProvider {
  requireOptions("anthropicProvider", options, "{ apiKey: process.env.ANTHROPIC_API_KEY }");
  refuseUnknownKeys("anthropicProvider", options, OPTION_KEYS);
  markJudgePossible();
  const baseURL = options.baseURL ?? "https://api.anthropic.com";
  requireBaseUrl("anthropicProvider: `baseURL`", baseURL);
  const base = splitBaseUrl(baseURL);
  const url = joinUrl(base.url, "v1/messages");
  const where = `Anthropic endpoint ${joinUrl(base.shown, "v1/messages")}`;
  const key = apiKeySource(
    Boolean(options.apiKey),
    options.apiKeyFrom,
    "apiKey given to anthropicProvider",
  );
  const headers: Record<string, string> = {
    ...options.headers,
    "x-api-key": options.apiKey,
    "anthropic-version": ANTHROPIC_VERSION,
  };
  if (base.authorization && !hasAuthorization(options.headers))
    headers.authorization = base.authorization;
  return Object.freeze({
    kind: "judge-provider" as const,
    id: `anthropic@${base.shown}`,
    endpoint: base.shown,
    priceNames: (model: string) => [model, anthropicModelId(model)],
    async complete(
      request: JudgeChatRequest,
      { model, signal }: { model: string; signal: AbortSignal },
    ) {
      const body = {
        // Registered or resolved from env, the same model string reaches the API the same way.
        model: anthropicModelId(model),
        max_tokens: request.maxOutputTokens,
        temperature: request.temperature,
        system: request.system,
        messages: request.messages,
        tools: [
          {
            name: request.answer.name,
            description: request.answer.description,
            input_schema: request.answer.schema,
          },
        ],
        tool_choice: { type: "tool", name: request.answer.name },
        stream: false,
      };
      const answer = (await postJson(url, headers, body, signal, where, {
        apiKey: key,
      })) as MessagesAnswer;
      return readMessage(answer, request.answer.name, where);
    },
  });
}

function readMessage(answer: MessagesAnswer, toolName: string, where: string): JudgeChatResponse {
  // Counts the server left out stay absent: unreported, not 0. An answer that is no judgment
  // carries them too: it was billed, and a retry adds its own.
  const usage = {
    inputTokens: answer.usage?.input_tokens,
    outputTokens: answer.usage?.output_tokens,
  };
  const billed = answer.usage ? usage : undefined;
  if (answer.type === "error" || answer.error != null) {
    // A kind the API names decides; another (a proxy's) leaves it to the error's code.
    const kind = (answer.error as { type?: unknown } | null | undefined)?.type;
    throw errorInBody(answer.error ?? answer, where, {
      retryable:
        typeof kind === "string" && Object.hasOwn(ERROR_KINDS, kind)
          ? ERROR_KINDS[kind]
          : undefined,
      tokens: billed,
    });
  }
  if (!Array.isArray(answer.content)) {
    throw new JudgeCallError(`${where} answered without a content array`, {
      retryable: true,
      tokens: billed,
    });
  }
  const text = answer.content
    .map((block) => (block.type === "text" ? ((block as { text?: string }).text ?? "") : ""))
    .join("");
  // A refusal is no answer to repair: asking again in a repair turn would be refused too.
  if (answer.stop_reason === "refusal") {
    throw new JudgeCallError(
      `the model refused to judge (stop_reason "refusal")${text ? `: ${text.slice(0, 300)}` : ""}`,
      { retryable: false, tokens: usage },
    );
  }
  // The request filled the model's context window: a repair turn, longer still, would too.
  if (answer.stop_reason === "model_context_window_exceeded") {
    throw new JudgeCallError(
      `${where} stopped the judge's answer when the model's context window filled (stop_reason "model_context_window_exceeded"): send less material to judge, or use a model with a larger context window`,
      { retryable: false, tokens: usage },
    );
  }
  const call = answer.content.find(
    (block): block is { type: "tool_use"; name?: string; input?: unknown } =>
      block.type === "tool_use" && (block as { name?: string }).name === toolName,
  );
  // A forced tool call cut by max_tokens carries a partial input: let the scorer see it as malformed.
  if (call && answer.stop_reason !== "max_tokens") {
    return { text: JSON.stringify(call.input ?? null), data: call.input, ...usage };
  }
  const ended = endedBy(answer, call === undefined ? toolName : undefined);
  return {
    text: call ? JSON.stringify(call.input ?? null) : text,
    ...(ended ? { ended } : {}),
    ...(answer.stop_reason === "max_tokens" ? { cutOff: true as const } : {}),
    ...usage,
  };
}

/**
 * How an unusable answer ended: cut off at the output token limit, or (`missing`: the verdict's
 * tool was not called) a call of another tool, named, instead of the verdict's.
 */
function endedBy(answer: MessagesAnswer, missing: string | undefined): string | undefined {
  if (answer.stop_reason === "max_tokens")
    return `the answer was cut off at the output token limit (stop_reason "max_tokens")`;
  if (missing === undefined) return undefined;
  const called = (answer.content ?? [])
    .filter((block) => block.type === "tool_use")
    .map((block) => JSON.stringify((block as { name?: unknown }).name ?? null));
  if (called.length === 0) return undefined;
  return `the model called the tool ${called.join(", ")} instead of "${missing}" (stop_reason "${answer.stop_reason}")`;
}

/** Model strings name versions with dots (`claude-haiku-4.5`); the Messages API uses dashes (`claude-haiku-4-5`). */
export function anthropicModelId(name: string): string {
  return name.replace(/(\d)\.(\d)/g, "$1-$2");
}
