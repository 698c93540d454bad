import { errorInBody, JudgeCallError } from "../call-error.js";
import type { JudgeChatResponse } from "../chat.js";

/** A chat completion as OpenAI-compatible servers answer it, with what some of them add. */
export interface ChatCompletion {
  choices?: {
    message?: {
      /** A string; some servers give an array of parts (reasoning, then text) instead. */
      content?: unknown;
      refusal?: string | null;
      tool_calls?: { function?: { name?: string } }[];
    };
    finish_reason?: string;
    /** An error met while the model answered (OpenRouter, with finish_reason "error"). */
    error?: unknown;
  }[];
  /** An error met after the request was accepted, sent in a 200's body (OpenRouter). */
  error?: unknown;
  usage?: { prompt_tokens?: number; completion_tokens?: number };
}

/**
 * The judge's answer in a completion. A refusal, an answer the content filter withheld and an
 * error sent in the body are JudgeCallErrors saying so (the filter's and a refusal's not worth
 * another try); an answer cut off or replaced by a tool call says how it ended.
 */
export function readCompletion(completion: ChatCompletion, where: string): JudgeChatResponse {
  const choice = completion.choices?.[0];
  // Counts the server left out stay absent: unreported, not 0 (many servers omit usage). An
  // answer that is no judgment carries them too: it was billed, and a retry adds its own.
  const tokens = {
    inputTokens: completion.usage?.prompt_tokens,
    outputTokens: completion.usage?.completion_tokens,
  };
  // Counted only when the answer had a usage block: a try that said nothing of its cost is not
  // one more call whose usage went unreported.
  const billed = completion.usage ? tokens : undefined;
  const failure = completion.error ?? choice?.error;
  if (failure != null) throw errorInBody(failure, where, { tokens: billed });
  const message = choice?.message;
  if (!message) {
    throw new JudgeCallError(`${where} answered without choices[0].message`, {
      retryable: true,
      tokens: billed,
    });
  }
  const refusal = message.refusal ?? refusalPart(message.content);
  if (refusal) {
    throw new JudgeCallError(`the model refused to judge: ${refusal}`, {
      retryable: false,
      tokens,
    });
  }
  // The same question gets the same filter: neither a retry nor a repair turn would pass it.
  if (choice.finish_reason === "content_filter") {
    throw new JudgeCallError(
      `${where} withheld the judge's answer: its content filter stopped it (finish_reason "content_filter")`,
      { retryable: false, tokens },
    );
  }
  const ended = endedBy(choice.finish_reason, message.tool_calls);
  return {
    text: contentText(message.content),
    ...(ended ? { ended } : {}),
    ...(choice.finish_reason === "length" ? { cutOff: true as const } : {}),
    ...tokens,
  };
}

/** The text of a content: the string, or the `text` parts of an array joined (reasoning left out). */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: { type?: unknown; text?: unknown } | null) =>
      part?.type === "text" && typeof part.text === "string" ? part.text : "",
    )
    .join("");
}

/** The refusal a content array carries as a `refusal` part, if any. */
function refusalPart(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  const part = content.find(
    (p: { type?: unknown; refusal?: unknown } | null) =>
      p?.type === "refusal" && typeof p.refusal === "string",
  ) as { refusal: string } | undefined;
  return part?.refusal;
}

function endedBy(
  reason: string | undefined,
  calls: { function?: { name?: string } }[] | undefined,
): string | undefined {
  if (reason === "length")
    return `the answer was cut off at the output token limit (finish_reason "length")`;
  const called = calls?.map((call) => call.function?.name).filter((name) => name);
  if (called?.length || reason === "tool_calls")
    return `the model called ${called?.length ? `the tool "${called.join('", "')}"` : "a tool"} instead of answering in text (finish_reason "${reason}")`;
  return undefined;
}
