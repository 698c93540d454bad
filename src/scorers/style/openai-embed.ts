import { embedTexts } from "../../judge/embed.js";
import { markJudgePossible } from "../../judge/ledger.js";
import { openAiEmbeddings } from "../../judge/providers/openai-embeddings.js";
import type { EmbedFn } from "./style-embedding.js";

/** Options of {@link openAiEmbed}. */
export interface OpenAiEmbedOptions {
  /** The API root, e.g. "https://api.openai.com/v1" or "http://127.0.0.1:11434/v1". */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>` when given. */
  apiKey?: string | undefined;
  /**
   * Where `apiKey` came from, named (never the key) when the endpoint refuses it with a 401 or
   * 403: an environment variable such as `"OPENAI_API_KEY"`. Default: the `apiKey` option.
   */
  apiKeyFrom?: string | undefined;
  /** The embedding model name, e.g. "text-embedding-3-small". */
  model: string;
  /** Requested vector length, for models that can shorten their output. */
  dimensions?: number | undefined;
  /** Extra request headers (organisation, project, gateway keys). */
  headers?: Readonly<Record<string, string>> | undefined;
}

/**
 * An {@link EmbedFn} for any OpenAI-compatible embeddings endpoint: one
 * `POST {baseUrl}/embeddings` with `{ model, input: texts }` per call, vectors read from
 * `data[].embedding` and put back in input order by `data[].index`. Calls go the way judge calls
 * do (configureJudges): the endpoint's scheduler, a timeout per try, retries after a 429, a 5xx
 * or a dropped connection (honouring Retry-After), and usage in the judge usage of the judgment
 * (calls, retries, input tokens, cost when the price table lists `model`).
 * @throws JudgeUnavailableError when the call finally fails (a status that is no use retrying,
 * tries spent, or an answer without one numeric vector per text), naming the model and the
 * endpoint: the scorer's judgment is unavailable, never a 0.
 * @example
 * const embed = openAiEmbed({ baseUrl: "https://api.openai.com/v1", apiKey: process.env.OPENAI_API_KEY, apiKeyFrom: "OPENAI_API_KEY", model: "text-embedding-3-small" });
 * const driver = makeStyleEmbeddingDriver(embed);
 */
export function openAiEmbed(options: OpenAiEmbedOptions): EmbedFn {
  if (!options.baseUrl) throw new TypeError("openAiEmbed: options.baseUrl is required");
  if (!options.model) throw new TypeError("openAiEmbed: options.model is required");
  markJudgePossible();
  const wire = openAiEmbeddings(options);
  return (texts, call) => embedTexts(wire, options.model, texts, call?.signal);
}
