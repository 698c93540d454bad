import type { LanguageModel } from "ai";
import { AuthoringError } from "../errors.js";
import { isJsonText } from "../json-safe.js";
import { JudgeCallError, parseRetryAfter, spentQuota, statusHint } from "../judge/call-error.js";
import type { JudgeChatRequest, JudgeChatResponse } from "../judge/chat.js";
import { markJudgePossible } from "../judge/ledger.js";
import type { JudgeProvider } from "../judge/providers/provider.js";
import { valueKind } from "../required.js";
import { aiSdkEndpoint } from "./endpoint.js";

/** A stable name for an AI SDK model: its gateway id, or `provider/modelId`. */
export function aiSdkModelName(model: LanguageModel): string {
  return typeof model === "string" ? model : `${model.provider}/${model.modelId}`;
}

/**
 * A judge provider that answers through an AI SDK `LanguageModel` (structured output via
 * `Output.object`). The `ai` package is loaded on first call, so importing niceeval never needs it.
 * Retries are niceeval's (the AI SDK's own are turned off), so the scheduler sees every 429.
 * Its endpoint (the cache key's and the scheduler's) is the AI SDK provider's name and, when the
 * model exposes it, its base URL: one server's verdicts are never served for another's.
 */
export function aiSdkJudgeProvider(model: LanguageModel): JudgeProvider {
  refuseNotAModel("aiSdkJudgeProvider", model);
  markJudgePossible();
  const name = aiSdkModelName(model);
  return Object.freeze({
    kind: "judge-provider" as const,
    id: `ai-sdk:${name}`,
    endpoint: endpointKey(model),
    priceNames: () => priceNames(model),
    async complete(request: JudgeChatRequest, { signal }: { model: string; signal: AbortSignal }) {
      const ai = await loadAi();
      const output = ai.Output.object({
        schema: ai.jsonSchema(request.answer.schema as Parameters<typeof ai.jsonSchema>[0]),
        name: request.answer.name,
        description: request.answer.description,
      });
      try {
        const result = await ai.generateText({
          model,
          system: request.system,
          messages: request.messages,
          temperature: request.temperature,
          maxOutputTokens: request.maxOutputTokens,
          maxRetries: 0,
          abortSignal: signal,
          output,
        });
        refuseFiltered(result.finishReason, result.rawFinishReason, result.usage);
        return {
          text: result.text,
          ...outputOf(ai, result),
          ...cutOff(result.finishReason, result.rawFinishReason),
          ...calledTools(result),
          // The AI SDK leaves a count undefined when the provider did not report it: unreported.
          inputTokens: result.usage.inputTokens,
          outputTokens: result.usage.outputTokens,
        } satisfies JudgeChatResponse;
      } catch (error) {
        // Already classified (a filtered answer): as it is.
        if (error instanceof JudgeCallError) throw error;
        // The model answered, but not with the schema: hand its text to niceeval's repair turn.
        if (ai.NoObjectGeneratedError.isInstance(error) && error.text !== undefined) {
          refuseFiltered(error.finishReason, undefined, error.usage);
          return {
            text: error.text,
            ...cutOff(error.finishReason, undefined),
            inputTokens: error.usage?.inputTokens,
            outputTokens: error.usage?.outputTokens,
          } satisfies JudgeChatResponse;
        }
        throw toCallError(error, name, signal);
      }
    },
  });
}

/**
 * Refuse what is not an AI SDK `LanguageModel` (a model id string, or an object with `provider`,
 * `modelId` and `doGenerate`) when a judge is made: the provider itself (`createOpenAI({…})`, not
 * called with a model id), its model factory or undefined would fail only on the first judge call,
 * with a TypeError naming none of them. `where` names the function (`judgeFromAiSdk`).
 * @throws AuthoringError saying what was passed and to pass a model.
 */
export function refuseNotAModel(where: string, model: unknown): asserts model is LanguageModel {
  if (typeof model === "string" && model !== "") return;
  const { provider, modelId, doGenerate } = (model ?? {}) as Record<string, unknown>;
  const isModel =
    (typeof model === "object" || typeof model === "function") &&
    typeof provider === "string" &&
    typeof modelId === "string" &&
    typeof doGenerate === "function";
  if (isModel) return;
  const given =
    typeof model === "function" &&
    typeof (model as { languageModel?: unknown }).languageModel === "function"
      ? "an AI SDK provider"
      : typeof model === "function"
        ? "a function (a provider's model factory?)"
        : valueKind(model);
  throw new AuthoringError(
    `${where}: got ${given}, not a model; pass a model such as openai("gpt-4.1-mini") (the provider called with a model id, or a gateway model id string), not the provider`,
  );
}

/** `ai-sdk:openai.chat@https://api.openai.com/v1`; without a base URL, the provider's name alone. */
function endpointKey(model: LanguageModel): string {
  const at = aiSdkEndpoint(model);
  return `ai-sdk:${typeof model === "string" ? "gateway" : model.provider}${at ? `@${at}` : ""}`;
}

/**
 * The names a price table may list an AI SDK model under: as a model string (its provider's name
 * up to the first dot, then its model id: `anthropic/claude-haiku-4-5`), its model id alone, and
 * its AI SDK name (`anthropic.messages/claude-haiku-4-5`); a gateway model's string as it is.
 */
function priceNames(model: LanguageModel): string[] {
  if (typeof model === "string") return [model];
  const family = model.provider.split(".", 1)[0];
  return [`${family}/${model.modelId}`, model.modelId, aiSdkModelName(model)];
}

/**
 * An answer that stopped at the output token limit (the AI SDK's finish reason "length") is
 * unusable even when what came parses, as on niceeval's own providers: the judge was not done.
 */
function cutOff(
  finishReason: string | undefined,
  raw: string | undefined,
): Pick<JudgeChatResponse, "cutOff" | "ended"> {
  if (finishReason !== "length") return {};
  const said = raw && raw !== "length" ? `, "${raw}" from the provider` : "";
  return {
    cutOff: true,
    ended: `the answer was cut off at the output token limit (finishReason "length"${said})`,
  };
}

/**
 * An answer the provider's content filter withheld (the AI SDK's finish reason "content-filter",
 * a refusal included) is no answer: a JudgeCallError not worth another try, nor a repair turn,
 * with what it was billed.
 */
function refuseFiltered(
  finishReason: string | undefined,
  raw: string | undefined,
  usage: { inputTokens?: number | undefined; outputTokens?: number | undefined } | undefined,
): void {
  if (finishReason !== "content-filter") return;
  const said = raw ? `, "${raw}" from the provider` : "";
  throw new JudgeCallError(
    `the model's answer was withheld by its provider's content filter or refused (finishReason "content-filter"${said})`,
    {
      retryable: false,
      tokens: { inputTokens: usage?.inputTokens, outputTokens: usage?.outputTokens },
    },
  );
}

/**
 * The structured answer, when there is one: the AI SDK throws NoOutputGeneratedError on reading
 * `output` when the model answered otherwise (a tool call), and niceeval's repair turn handles
 * such an answer as the built-in providers' (with {@link calledTools}' words).
 */
function outputOf(
  ai: typeof import("ai"),
  result: { readonly output: unknown },
): { data?: unknown } {
  try {
    return { data: result.output };
  } catch (error) {
    if (ai.NoOutputGeneratedError.isInstance(error)) return {};
    throw error;
  }
}

/** An answer that called a tool instead of answering in text, said as the built-in providers say it. */
function calledTools(result: {
  finishReason: string;
  rawFinishReason?: string | undefined;
  toolCalls: readonly { toolName: string }[];
}): Pick<JudgeChatResponse, "ended"> {
  const called = result.toolCalls.map((call) => call.toolName).filter((name) => name);
  if (called.length === 0 && result.finishReason !== "tool-calls") return {};
  const tools = called.length ? `the tool "${called.join('", "')}"` : "a tool";
  const raw = result.rawFinishReason ? `, "${result.rawFinishReason}" from the provider` : "";
  return {
    ended: `the model called ${tools} instead of answering in text (finishReason "${result.finishReason}"${raw})`,
  };
}

async function loadAi(): Promise<typeof import("ai")> {
  try {
    return await import("ai");
  } catch (error) {
    throw new JudgeCallError("niceeval/ai-sdk needs the `ai` package (>= 6): run `npm i ai`", {
      retryable: false,
      cause: error,
    });
  }
}

// Keep the AI SDK's own classification (status, retryable, Retry-After) for niceeval's scheduler.
function toCallError(error: unknown, name: string, signal: AbortSignal): unknown {
  if (signal.aborted) return error;
  const details = error as {
    message?: string;
    url?: string;
    statusCode?: number;
    isRetryable?: boolean;
    responseHeaders?: Record<string, string>;
    responseBody?: string;
  };
  const retryAfterMs = details.responseHeaders
    ? parseRetryAfter(new Headers(details.responseHeaders))
    : undefined;
  const body = typeof details.responseBody === "string" ? details.responseBody : "";
  // A spent quota is not cleared by waiting; a 2xx whose body could not be read (a proxy's HTML
  // page, a body cut short) is retried like a dropped connection, as the built-in providers do.
  const spent = spentQuota(body);
  const unread = isSuccess(details.statusCode) && !isJsonText(body);
  return new JudgeCallError(failure(name, details.message ?? String(error), details), {
    retryable: ((details.isRetryable ?? false) && !spent) || unread,
    rateLimited: details.statusCode === 429 && !spent,
    ...(details.statusCode !== undefined ? { status: details.statusCode } : {}),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    cause: error,
  });
}

const isSuccess = (status: number | undefined) =>
  status !== undefined && status >= 200 && status < 300;

/** Where an AI SDK model's key comes from. */
const KEY =
  "the API key of the AI SDK provider: its `apiKey` option, else its environment variable";

/**
 * What went wrong, said as niceeval's own providers say it: the endpoint the AI SDK called and
 * the status it got, with what to check (the key or the model id the AI SDK model was made with).
 */
function failure(name: string, message: string, at: { url?: string; statusCode?: number }): string {
  const where = `AI SDK model ${name}${at.url ? ` at ${at.url}` : ""}`;
  if (at.statusCode === undefined) return `${where} failed: ${message}`;
  return `${where} answered HTTP ${at.statusCode}: ${message}${statusHint(at.statusCode, KEY)}`;
}
