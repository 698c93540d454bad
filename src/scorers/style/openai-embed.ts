import { NiceevalError } from "../../errors.js";
import type { EmbedFn } from "./style-embedding.js";

/** An embeddings server refused the request or answered something that is not embeddings. */
export class EmbeddingRequestError extends NiceevalError {
  readonly url: string;
  readonly status: number | undefined;
  constructor(url: string, problem: string, status?: number, options?: { cause?: unknown }) {
    super(
      "EMBEDDING_REQUEST_FAILED",
      `embeddings request to ${url} failed: ${problem}. Check baseUrl, model and apiKey given to openAiEmbed.`,
      options,
    );
    this.name = "EmbeddingRequestError";
    this.url = url;
    this.status = status;
  }
}

/** Options of {@link openAiEmbed}. */
export interface OpenAiEmbedOptions {
  /** The API root, e.g. "https://api.openai.com/v1" or "http://127.0.0.1:11434/v1". */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>` when given. */
  apiKey?: string | undefined;
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
 * `data[].embedding` and put back in input order by `data[].index`.
 * @throws EmbeddingRequestError on a network failure, a non-2xx status (with the server's
 * message), or a body without one numeric vector per text.
 * @example
 * const embed = openAiEmbed({ baseUrl: "https://api.openai.com/v1", apiKey: process.env.OPENAI_API_KEY, model: "text-embedding-3-small" });
 * const driver = makeStyleEmbeddingDriver(embed);
 */
export function openAiEmbed(options: OpenAiEmbedOptions): EmbedFn {
  if (!options.baseUrl) throw new TypeError("openAiEmbed: options.baseUrl is required");
  if (!options.model) throw new TypeError("openAiEmbed: options.model is required");
  const url = `${options.baseUrl.replace(/\/+$/u, "")}/embeddings`;
  return async (texts, call) => {
    if (texts.length === 0) return [];
    const body: Record<string, unknown> = { model: options.model, input: texts };
    if (options.dimensions !== undefined) body.dimensions = options.dimensions;
    const headers: Record<string, string> = {
      "content-type": "application/json",
      ...options.headers,
    };
    if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
    let response: Response;
    try {
      const init: RequestInit = { method: "POST", headers, body: JSON.stringify(body) };
      if (call?.signal) init.signal = call.signal;
      response = await fetch(url, init);
    } catch (error) {
      if (call?.signal?.aborted) throw error;
      throw new EmbeddingRequestError(url, `network error (${describeCause(error)})`, undefined, {
        cause: error,
      });
    }
    const text = await response.text();
    if (!response.ok) {
      throw new EmbeddingRequestError(
        url,
        `HTTP ${response.status}: ${serverMessage(text)}`,
        response.status,
      );
    }
    return readVectors(url, text, texts.length);
  };
}

function readVectors(url: string, text: string, expected: number): number[][] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new EmbeddingRequestError(url, `the response is not JSON: ${clip(text)}`);
  }
  const data = (parsed as { data?: unknown } | null)?.data;
  if (!Array.isArray(data))
    throw new EmbeddingRequestError(url, "the response has no `data` array");
  if (data.length !== expected) {
    throw new EmbeddingRequestError(url, `got ${data.length} embeddings for ${expected} texts`);
  }
  const vectors = new Array<number[] | undefined>(expected);
  data.forEach((entry: unknown, position) => {
    const { embedding, index } = (entry ?? {}) as { embedding?: unknown; index?: unknown };
    const slot = typeof index === "number" ? index : position;
    if (!Number.isInteger(slot) || slot < 0 || slot >= expected || vectors[slot] !== undefined) {
      throw new EmbeddingRequestError(
        url,
        `data[${position}].index ${String(index)} is out of range or repeated`,
      );
    }
    if (!Array.isArray(embedding) || !embedding.every((x) => typeof x === "number")) {
      throw new EmbeddingRequestError(
        url,
        `data[${position}].embedding is not an array of numbers (request float encoding)`,
      );
    }
    vectors[slot] = embedding;
  });
  return vectors as number[][];
}

function serverMessage(text: string): string {
  try {
    const message = (JSON.parse(text) as { error?: { message?: unknown } } | null)?.error?.message;
    if (typeof message === "string") return message;
  } catch {
    // Not JSON: show the raw body.
  }
  return clip(text) || "(empty body)";
}

function describeCause(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (cause && typeof cause.code === "string") return cause.code;
  return error instanceof Error ? error.message : String(error);
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}
