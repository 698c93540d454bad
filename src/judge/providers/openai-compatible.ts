import { type KnownKeys, refuseUnknownKeys } from "../../known-keys.js";
import { requireOptions } from "../../required.js";
import { apiKeySource, JudgeCallError } from "../call-error.js";
import type { JudgeChatRequest } from "../chat.js";
import { markJudgePossible, recordJudgeUsage } from "../ledger.js";
import { postJson } from "./fetch-json.js";
import { type ChatCompletion, readCompletion } from "./openai-completion.js";
import {
  hasAuthorization,
  type JudgeProvider,
  joinUrl,
  requireBaseUrl,
  splitBaseUrl,
} from "./provider.js";

/** Options of {@link openAICompatibleProvider}. */
export interface OpenAICompatibleOptions {
  /** Base URL including the version segment, e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1`. */
  baseURL: string;
  /** Sent as `Authorization: Bearer …` when given (local servers often need none). */
  apiKey?: string | undefined;
  /**
   * Where `apiKey` came from, named (never the key) when the endpoint refuses it with a 401 or
   * 403: an environment variable such as `"MY_JUDGE_KEY"`. Default: the `apiKey` option.
   */
  apiKeyFrom?: string | undefined;
  /** Extra headers, e.g. for a gateway. */
  headers?: Record<string, string> | undefined;
  /**
   * Ask for a JSON-schema response format (default true). When the server rejects it,
   * the provider retries once without it and reads JSON out of the prose from then on.
   */
  structuredOutput?: boolean | undefined;
  /**
   * Name of the output-length field (default `max_completion_tokens` on api.openai.com, else
   * `max_tokens`). Without it, a server that refuses `max_tokens` with a 400 naming
   * `max_completion_tokens` (newer OpenAI models behind a proxy) gets that field from then on.
   */
  maxTokensField?: "max_tokens" | "max_completion_tokens" | undefined;
}

const OPTION_KEYS = {
  baseURL: true,
  apiKey: true,
  apiKeyFrom: true,
  headers: true,
  structuredOutput: true,
  maxTokensField: true,
} satisfies KnownKeys<OpenAICompatibleOptions>;

/**
 * A judge provider speaking OpenAI chat completions (OpenAI, OpenRouter, Ollama, vLLM,
 * LM Studio, llama.cpp server…).
 * @example
 * registerJudgeProvider("ollama", openAICompatibleProvider({ baseURL: "http://localhost:11434/v1" }));
 */
export function openAICompatibleProvider(options: OpenAICompatibleOptions): JudgeProvider {
  requireOptions("openAICompatibleProvider", options, '{ baseURL: "http://localhost:11434/v1" }');
  refuseUnknownKeys("openAICompatibleProvider", options, OPTION_KEYS);
  requireBaseUrl("openAICompatibleProvider: `baseURL`", options.baseURL);
  markJudgePossible();
  const base = splitBaseUrl(options.baseURL);
  const url = joinUrl(base.url, "chat/completions");
  let maxTokensField =
    options.maxTokensField ??
    (/\/\/api\.openai\.com\b/.test(options.baseURL) ? "max_completion_tokens" : "max_tokens");
  let structured = options.structuredOutput ?? true;
  // Some models only take their default temperature; learnt from the first 400 that says so.
  let sendTemperature = true;
  const where = `OpenAI-compatible endpoint ${joinUrl(base.shown, "chat/completions")}`;
  const headers: Record<string, string> = { ...options.headers };
  if (base.authorization && !hasAuthorization(options.headers))
    headers.authorization = base.authorization;
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  const key = apiKeySource(
    Boolean(options.apiKey),
    options.apiKeyFrom,
    "apiKey given to openAICompatibleProvider",
  );

  /** What one request sent of the options a server may refuse. */
  interface Sent {
    structured: boolean;
    temperature: boolean;
    tokensField: TokensField;
  }
  const send = async (
    request: JudgeChatRequest,
    model: string,
    signal: AbortSignal,
    sent: Sent,
  ) => {
    sent.structured = structured;
    sent.temperature = sendTemperature;
    sent.tokensField = maxTokensField;
    const body: Record<string, unknown> = {
      model,
      messages: [{ role: "system", content: request.system }, ...request.messages],
      [maxTokensField]: request.maxOutputTokens,
      // One JSON answer: said, for servers and proxies that stream by default.
      stream: false,
    };
    if (sendTemperature) body.temperature = request.temperature;
    if (structured) {
      body.response_format = {
        type: "json_schema",
        json_schema: {
          name: request.answer.name,
          description: request.answer.description,
          schema: request.answer.schema,
          strict: true,
        },
      };
    }
    return (await postJson(url, headers, body, signal, where, { apiKey: key })) as ChatCompletion;
  };

  return Object.freeze({
    kind: "judge-provider" as const,
    id: `openai-compatible@${base.shown}`,
    endpoint: base.shown,
    async complete(
      request: JudgeChatRequest,
      { model, signal }: { model: string; signal: AbortSignal },
    ) {
      // A rejected option is dropped (or, for the output length, renamed) for good, and the
      // request sent again: at most three such re-sends per call. The option is judged by what
      // this request sent, so calls refused at once (before the first refusal dropped it) are
      // each sent again as well. An answer to a request sent without its temperature says so:
      // it is not the temperature-0 answer the cache keeps.
      const sent: Sent = { structured: false, temperature: false, tokensField: maxTokensField };
      for (;;) {
        try {
          const answer = readCompletion(await send(request, model, signal, sent), where);
          return sent.temperature ? answer : { ...answer, withoutTemperature: true as const };
        } catch (error) {
          if (sent.structured && rejects(error, REFUSED_SCHEMA)) structured = false;
          else if (sent.temperature && rejects(error, /temperature/i)) sendTemperature = false;
          else if (asksForCompletionTokens(error, sent.tokensField, options.maxTokensField))
            maxTokensField = "max_completion_tokens";
          else throw withTokensFieldHint(error, sent.tokensField);
          // Sent again: a request the endpoint received, counted as a retry of this call.
          recordJudgeUsage({ retries: 1 });
        }
      }
    },
  });
}

type TokensField = "max_tokens" | "max_completion_tokens";

/**
 * A 400 about the structured-output request: its field named, or the schema's parts a server
 * does not take (Gemini names `response_schema` and `additionalProperties`).
 */
const REFUSED_SCHEMA =
  /response_format|json_schema|response_schema|structured|additionalProperties/i;

/**
 * The 400 newer OpenAI models give `max_tokens` ("Use 'max_completion_tokens' instead"), when
 * the field was niceeval's default, not the author's choice.
 */
function asksForCompletionTokens(
  error: unknown,
  sent: TokensField,
  chosen: TokensField | undefined,
): boolean {
  return chosen === undefined && sent === "max_tokens" && rejects(error, /max_completion_tokens/);
}

/** A refusal of the output-length field that no re-send cured says how to choose the field. */
function withTokensFieldHint(error: unknown, sent: TokensField): unknown {
  if (!(error instanceof JudgeCallError) || !rejects(error, /max_(completion_)?tokens/))
    return error;
  return new JudgeCallError(
    `${error.message} (niceeval sent "${sent}"; give openAICompatibleProvider the maxTokensField this server takes and register it with registerJudgeProvider)`,
    {
      ...(error.status !== undefined ? { status: error.status } : {}),
      retryable: error.retryable,
      cause: error,
    },
  );
}

// A 400/422 naming an option means the server or model does not take it.
function rejects(error: unknown, option: RegExp): boolean {
  return (
    error instanceof JudgeCallError &&
    (error.status === 400 || error.status === 422) &&
    option.test(error.message)
  );
}
