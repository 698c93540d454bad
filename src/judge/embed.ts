import { settleUsage } from "./call-usage.js";
import { judgeSettings } from "./config.js";
import { attemptSignal } from "./ledger.js";
import type { EmbeddingsWire } from "./providers/openai-embeddings.js";
import { callWithRetries } from "./retries.js";
import { JudgeUnavailableError } from "./unavailable.js";

/**
 * Embed `texts` the way judges are called: through the endpoint's scheduler, with the per-try
 * timeout and retries of the judge settings, the memory of an unreachable endpoint, and usage
 * (calls, retries, input tokens, cost under `model` in the price table) in every open ledger.
 * A call that finally fails throws JudgeUnavailableError naming the model and the endpoint,
 * which a scorer's judgment reports as unavailable. Only an abort of `signal` throws otherwise.
 */
export async function embedTexts(
  wire: EmbeddingsWire,
  model: string,
  texts: string[],
  signal?: AbortSignal,
): Promise<number[][]> {
  if (texts.length === 0) return [];
  const settings = judgeSettings();
  const attempted = await callWithRetries(
    {
      endpoint: wire.endpoint,
      provider: wire.where,
      who: `embedding model "${model}" at ${wire.endpoint}`,
      send: (tried) => wire.send(texts, tried),
    },
    settings,
    signal ?? attemptSignal(),
  );
  settleUsage(attempted, [model], settings.prices);
  const { outcome } = attempted;
  if (!outcome.ok)
    throw new JudgeUnavailableError("failed", model, outcome.reason, { role: "embedding model" });
  return outcome.response.vectors;
}
