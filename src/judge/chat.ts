/**
 * The provider-neutral request a judge sends and the answer it gets back. Providers translate
 * these to their wire protocol; the cache keys on the request as given here.
 */

/** A JSON Schema for the structured answer, with a name providers can show the model. */
export interface JudgeAnswerSchema {
  /** a-z, A-Z, 0-9, `_` or `-`, at most 64 characters (the strictest provider's rule). */
  name: string;
  description: string;
  /** A JSON Schema object: every property required, no additional properties. */
  schema: Record<string, unknown>;
}

/** One turn of the conversation sent to the judge. */
export interface JudgeMessage {
  role: "user" | "assistant";
  content: string;
}

/** What a judge scorer asks a model. */
export interface JudgeChatRequest {
  system: string;
  messages: JudgeMessage[];
  answer: JudgeAnswerSchema;
  /** 0 unless told otherwise; only temperature-0 requests are cached by default. */
  temperature: number;
  maxOutputTokens: number;
}

/**
 * Tokens the provider said a call used; a count absent when its answer did not say (no usage
 * block): the call is then counted as one whose usage was not reported, never as 0 tokens.
 */
export interface JudgeTokens {
  inputTokens?: number | undefined;
  outputTokens?: number | undefined;
}

/** A provider's answer, before the scorer checks its shape. */
export interface JudgeChatResponse extends JudgeTokens {
  /** The raw text the model produced (for a forced tool call, the tool input as JSON). */
  text: string;
  /** The structured answer when the provider returned one already parsed. */
  data?: unknown;
  /**
   * How the answer ended when that explains an unusable one: cut off at the output token limit,
   * or a tool called instead of an answer. Said after what was wrong with it.
   */
  ended?: string;
  /**
   * It stopped at the output token limit: unusable even when what came parses (a verdict without
   * its reason, a list cut short), never cached.
   */
  cutOff?: true;
  /**
   * It was sent without the request's temperature, which the server refused (as reasoning models
   * refuse 0): an answer at the model's default temperature, so never cached.
   */
  withoutTemperature?: true;
}

/** Where a call goes: provider id, model name as the provider knows it, and an endpoint key. */
export interface JudgeTarget {
  provider: string;
  model: string;
  /** Calls to one endpoint share a scheduler (concurrency cap, backoff, pauses). */
  endpoint: string;
}
