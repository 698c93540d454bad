import { apiKeySource, errorInBody, JudgeCallError } from "../call-error.js";
import { judgeSettings } from "../config.js";
import { postJson } from "./fetch-json.js";
import { hasAuthorization, joinUrl, requireBaseUrl, splitBaseUrl } from "./provider.js";

/** Where an OpenAI-compatible embeddings endpoint is and how to call it (`openAiEmbed`'s options). */
export interface OpenAiEmbeddingsTarget {
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

/** The vectors of one request, in input order, with the tokens it was billed for. */
export interface EmbeddingsAnswer {
  vectors: number[][];
  /** Absent when the answer reported no usage: unknown, never 0. */
  inputTokens?: number;
  /** An embedding has no output: always 0. */
  outputTokens: number;
}

/** One embeddings request over the wire: what the retry loop sends as a try. */
export interface EmbeddingsWire {
  /** The endpoint key its calls share a scheduler under (the base URL). */
  endpoint: string;
  /** How reasons name it: `OpenAI-compatible embeddings endpoint <url>`. */
  where: string;
  send(texts: string[], signal: AbortSignal): Promise<EmbeddingsAnswer>;
}

/**
 * `POST {baseUrl}/embeddings` with `{ model, input }`; vectors read from `data[].embedding` and
 * put back in input order by `data[].index`. Failures are classified JudgeCallErrors (a 429, a
 * 5xx or a dropped connection is worth another try; an answer of the wrong shape is not).
 */
export function openAiEmbeddings(target: OpenAiEmbeddingsTarget): EmbeddingsWire {
  requireBaseUrl("openAiEmbed: `baseUrl`", target.baseUrl);
  const base = splitBaseUrl(target.baseUrl.replace(/\/+$/u, ""));
  const endpoint = base.shown;
  const url = joinUrl(base.url, "embeddings");
  const where = `OpenAI-compatible embeddings endpoint ${joinUrl(base.shown, "embeddings")}`;
  const headers: Record<string, string> = { ...target.headers };
  if (base.authorization && !hasAuthorization(target.headers))
    headers.authorization = base.authorization;
  if (target.apiKey) headers.authorization = `Bearer ${target.apiKey}`;
  const apiKey = apiKeySource(
    Boolean(target.apiKey),
    target.apiKeyFrom,
    "apiKey given to openAiEmbed",
  );
  return {
    endpoint,
    where,
    async send(texts, signal) {
      const body: Record<string, unknown> = { model: target.model, input: texts };
      if (target.dimensions !== undefined) body.dimensions = target.dimensions;
      // A vector is some tens of KiB of JSON: the cap on an answer grows with the texts asked.
      const maxBytes = judgeSettings().maxResponseBytes * Math.max(1, texts.length);
      const answer = await postJson(url, headers, body, signal, where, { apiKey, maxBytes });
      return readVectors(where, answer, texts.length);
    },
  };
}

function readVectors(where: string, answer: unknown, expected: number): EmbeddingsAnswer {
  const { data, usage, error } = (answer ?? {}) as {
    data?: unknown;
    usage?: { prompt_tokens?: unknown };
    error?: unknown;
  };
  if (error !== undefined) throw errorInBody(error, where);
  if (!Array.isArray(data)) throw shapeError(where, "has no `data` array");
  if (data.length !== expected)
    throw shapeError(where, `has ${data.length} embeddings for ${expected} texts`);
  const vectors = new Array<number[] | undefined>(expected);
  data.forEach((entry: unknown, position) => {
    const { embedding, index } = (entry ?? {}) as { embedding?: unknown; index?: unknown };
    const slot = typeof index === "number" ? index : position;
    if (!Number.isInteger(slot) || slot < 0 || slot >= expected || vectors[slot] !== undefined)
      throw shapeError(
        where,
        `has data[${position}].index ${String(index)}, out of range or repeated`,
      );
    if (!Array.isArray(embedding) || !embedding.every((x) => typeof x === "number")) {
      throw shapeError(
        where,
        `has data[${position}].embedding that is not an array of numbers (request float encoding)`,
      );
    }
    vectors[slot] = embedding;
  });
  const tokens = usage?.prompt_tokens;
  return {
    vectors: vectors as number[][],
    ...(typeof tokens === "number" && Number.isFinite(tokens) ? { inputTokens: tokens } : {}),
    outputTokens: 0,
  };
}

function shapeError(where: string, problem: string): JudgeCallError {
  return new JudgeCallError(`the answer of ${where} ${problem}`, { retryable: false });
}
