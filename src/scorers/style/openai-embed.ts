import { embedTexts } from "../../judge/embed.js";
import { markJudgePossible } from "../../judge/ledger.js";
import {
  type OpenAiEmbeddingsTarget,
  openAiEmbeddings,
} from "../../judge/providers/openai-embeddings.js";
import { type KnownKeys, refuseUnknownKeys } from "../../known-keys.js";
import { requireOptions, requireText } from "../../required.js";
import type { EmbedFn } from "./style-embedding.js";

/** Options of {@link openAiEmbed}: where the endpoint is and how to call it. */
export type OpenAiEmbedOptions = OpenAiEmbeddingsTarget;

const OPTION_KEYS = {
  baseUrl: true,
  apiKey: true,
  apiKeyFrom: true,
  model: true,
  dimensions: true,
  headers: true,
} satisfies KnownKeys<OpenAiEmbedOptions>;

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
  requireOptions(
    "openAiEmbed",
    options,
    '{ baseUrl: "https://api.openai.com/v1", model: "text-embedding-3-small" }',
  );
  refuseUnknownKeys("openAiEmbed", options, OPTION_KEYS);
  requireText("openAiEmbed", "model", options.model, "the embedding model's name");
  markJudgePossible();
  const wire = openAiEmbeddings(options);
  return (texts, call) => embedTexts(wire, options.model, texts, call?.signal);
}
