import type { LanguageModel } from "ai";
import { redactUrl } from "../redact-url.js";

/** What the AI SDK's provider packages keep on a model about where it sends its calls. */
interface ModelConfig {
  url?: unknown;
  baseURL?: unknown;
  baseUrl?: unknown;
}

/**
 * Where an AI SDK model sends its calls, as the model exposes it: its provider's base URL (a
 * password in it masked), or undefined when it says none (a model id for the gateway, a model
 * wrapped by `wrapLanguageModel`, a hand-written one). The `LanguageModel` interface carries no
 * URL, so this reads the provider packages' own `config`: `url({ path, modelId })` (OpenAI, Azure,
 * OpenAI-compatible servers, Groq, xAI…), `baseURL` (Anthropic, Google, Mistral, the gateway…)
 * or `baseUrl` (Amazon Bedrock). The API key and headers are not read: they say who calls, not
 * where, and the key must not reach a cache key or a message.
 */
export function aiSdkEndpoint(model: LanguageModel): string | undefined {
  if (typeof model === "string") return undefined;
  const config = (model as { config?: unknown }).config;
  if (typeof config !== "object" || config === null) return undefined;
  const { url, baseURL, baseUrl } = config as ModelConfig;
  const found =
    call(url, { path: "", modelId: model.modelId }) ??
    text(baseURL) ??
    call(baseUrl) ??
    text(baseUrl);
  return found === undefined ? undefined : redactUrl(found.replace(/\/+$/, ""));
}

const text = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : undefined;

// A provider's own function, called as the provider calls it; one that throws says nothing.
function call(fn: unknown, ...args: unknown[]): string | undefined {
  if (typeof fn !== "function") return undefined;
  try {
    return text(fn(...args));
  } catch {
    return undefined;
  }
}
