import type { LanguageModel } from "ai";
import { JudgeCallError, parseRetryAfter } from "../judge/call-error.js";
import type { JudgeChatRequest, JudgeChatResponse } from "../judge/chat.js";
import { markJudgePossible } from "../judge/ledger.js";
import type { JudgeProvider } from "../judge/providers/provider.js";

/** A stable name for an AI SDK model: its gateway id, or `provider/modelId`. */
export function aiSdkModelName(model: LanguageModel): string {
  return typeof model === "string" ? model : `${model.provider}/${model.modelId}`;
}

/**
 * A judge provider that answers through an AI SDK `LanguageModel` (structured output via
 * `Output.object`). The `ai` package is loaded on first call, so importing niceeval never needs it.
 * Retries are niceeval's (the AI SDK's own are turned off), so the scheduler sees every 429.
 */
export function aiSdkJudgeProvider(model: LanguageModel): JudgeProvider {
  markJudgePossible();
  const name = aiSdkModelName(model);
  return Object.freeze({
    kind: "judge-provider" as const,
    id: `ai-sdk:${name}`,
    endpoint: `ai-sdk:${typeof model === "string" ? "gateway" : model.provider}`,
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
        return {
          text: result.text,
          data: result.output as unknown,
          inputTokens: result.usage.inputTokens ?? 0,
          outputTokens: result.usage.outputTokens ?? 0,
        } satisfies JudgeChatResponse;
      } catch (error) {
        // The model answered, but not with the schema: hand its text to niceeval's repair turn.
        if (ai.NoObjectGeneratedError.isInstance(error) && error.text !== undefined) {
          return {
            text: error.text,
            inputTokens: error.usage?.inputTokens ?? 0,
            outputTokens: error.usage?.outputTokens ?? 0,
          } satisfies JudgeChatResponse;
        }
        throw toCallError(error, name, signal);
      }
    },
  });
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
    statusCode?: number;
    isRetryable?: boolean;
    responseHeaders?: Record<string, string>;
  };
  const retryAfterMs = details.responseHeaders
    ? parseRetryAfter(new Headers(details.responseHeaders))
    : undefined;
  return new JudgeCallError(`AI SDK model ${name} failed: ${details.message ?? String(error)}`, {
    retryable: details.isRetryable ?? false,
    rateLimited: details.statusCode === 429,
    ...(details.statusCode !== undefined ? { status: details.statusCode } : {}),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    cause: error,
  });
}
