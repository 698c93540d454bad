import { processWide } from "../process-wide.js";
import type { JudgeTarget } from "./chat.js";
import { judgeEnvironment, setLaterAdvice } from "./environment.js";
import { markJudgePossible } from "./ledger.js";
import { anthropicModelId, anthropicProvider } from "./providers/anthropic.js";
import { openAICompatibleProvider } from "./providers/openai-compatible.js";
import { baseUrlProblem, type JudgeProvider } from "./providers/provider.js";

/** A model string resolved to a provider, or the reason it cannot be (decided before any call). */
export type ResolvedJudge =
  | { ok: true; model: string; provider: JudgeProvider; target: JudgeTarget }
  | { ok: false; model: string; reason: string };

const registered = processWide("judge.providers", () => new Map<string, JudgeProvider>());
// One provider per endpoint and key, so what a provider learns (no JSON-schema support) sticks.
const fromEnvironment = processWide("judge.env-providers", () => new Map<string, JudgeProvider>());

function memo(key: string, make: () => JudgeProvider): JudgeProvider {
  let provider = fromEnvironment.get(key);
  if (!provider) {
    provider = make();
    fromEnvironment.set(key, provider);
  }
  return provider;
}

/**
 * Route model strings to a provider. `name` matches a whole model string, or the part before
 * its first `/` (the rest is then the model the provider receives). Registered providers win
 * over environment variables. Returns a function that removes the registration.
 * @example
 * registerJudgeProvider("ollama", openAICompatibleProvider({ baseURL: "http://localhost:11434/v1" }));
 * // "ollama/llama3.1" now reaches that server as model "llama3.1"
 */
export function registerJudgeProvider(name: string, provider: JudgeProvider): () => void {
  if (!name) throw new TypeError("registerJudgeProvider: `name` must be a non-empty string");
  if (provider?.kind !== "judge-provider" || typeof provider.complete !== "function") {
    throw new TypeError(
      `registerJudgeProvider("${name}"): the provider must come from openAICompatibleProvider, anthropicProvider or another JudgeProvider factory`,
    );
  }
  registered.set(name, provider);
  markJudgePossible();
  return () => {
    if (registered.get(name) === provider) registered.delete(name);
  };
}

/**
 * Resolve a model string such as `"anthropic/claude-haiku-4.5"`: registered providers first;
 * else NICEEVAL_JUDGE_BASE_URL (the whole string is the model); else `anthropic/…` with
 * ANTHROPIC_API_KEY and `openai/…` with OPENAI_API_KEY. Reads the environment as the run in
 * progress found it, or as a Vitest face registered its tests while one of its cases runs
 * (judge/environment.ts: code under test that sets OPENAI_BASE_URL for its own SDK does not move
 * the judges), else as it is now.
 */
export function resolveJudge(
  model: string,
  env: Readonly<Record<string, string | undefined>> = judgeEnvironment(),
): ResolvedJudge {
  if (typeof model !== "string" || model.trim() === "") {
    return {
      ok: false,
      model: String(model),
      reason: 'no judge model named; pass a model string such as "anthropic/claude-haiku-4.5"',
    };
  }
  const slash = model.indexOf("/");
  const prefix = slash === -1 ? model : model.slice(0, slash);
  const rest = slash === -1 ? model : model.slice(slash + 1);
  // "anthropic/" names a provider but no model: nothing to send.
  if (slash !== -1 && rest.trim() === "" && !registered.has(model)) {
    return {
      ok: false,
      model,
      reason: `judge model "${model}" names no model after "${prefix}/"; write it as "${prefix}/<model>", such as "anthropic/claude-haiku-4.5"`,
    };
  }
  const exact = registered.get(model);
  if (exact) return found(model, exact, model);
  const byPrefix = slash === -1 ? undefined : registered.get(prefix);
  if (byPrefix) return found(model, byPrefix, rest);

  const baseURL = env.NICEEVAL_JUDGE_BASE_URL;
  const providerUrl = slash === -1 ? undefined : PROVIDER_BASE_URLS.get(prefix);
  const wrongUrl = wrongBaseUrl(
    model,
    env,
    baseURL || !providerUrl ? ["NICEEVAL_JUDGE_BASE_URL"] : [providerUrl],
  );
  if (wrongUrl) return wrongUrl;
  if (baseURL) {
    const apiKey = env.NICEEVAL_JUDGE_API_KEY;
    const provider = memo(`openai\0${baseURL}\0${apiKey ?? ""}`, () =>
      openAICompatibleProvider({
        baseURL,
        ...(apiKey ? { apiKey } : {}),
        apiKeyFrom: "NICEEVAL_JUDGE_API_KEY",
      }),
    );
    return found(model, provider, model);
  }
  if (prefix === "anthropic" && slash !== -1) {
    const apiKey = env.ANTHROPIC_API_KEY;
    if (!apiKey) return missing(model, "ANTHROPIC_API_KEY");
    const anthropicBase = env.ANTHROPIC_BASE_URL;
    const provider = memo(`anthropic\0${anthropicBase ?? ""}\0${apiKey}`, () =>
      anthropicProvider({
        apiKey,
        apiKeyFrom: "ANTHROPIC_API_KEY",
        ...(anthropicBase ? { baseURL: anthropicBase } : {}),
      }),
    );
    return found(model, provider, rest);
  }
  if (prefix === "openai" && slash !== -1) {
    const apiKey = env.OPENAI_API_KEY;
    if (!apiKey) return missing(model, "OPENAI_API_KEY");
    const openaiBase = env.OPENAI_BASE_URL || "https://api.openai.com/v1";
    const provider = memo(`openai\0${openaiBase}\0${apiKey}`, () =>
      openAICompatibleProvider({ baseURL: openaiBase, apiKey, apiKeyFrom: "OPENAI_API_KEY" }),
    );
    return found(model, provider, rest);
  }
  // "openai:gpt-4o-mini", as other tools write it, meant the provider's model.
  const colon = /^(openai|anthropic):(.+)$/i.exec(model);
  if (colon && slash === -1) {
    return {
      ok: false,
      model,
      reason: `no judge provider for "${model}": write it "${colon[1]!.toLowerCase()}/${colon[2]}" (niceeval separates the provider from the model with "/")`,
    };
  }
  return {
    ok: false,
    model,
    reason: `no judge provider for "${model}": set NICEEVAL_JUDGE_BASE_URL (and NICEEVAL_JUDGE_API_KEY) to an OpenAI-compatible endpoint, name an "anthropic/…" or "openai/…" model, or call registerJudgeProvider("${prefix}", …)${setLaterAdvice(["NICEEVAL_JUDGE_BASE_URL"])}`,
  };
}

export { anthropicModelId };

function found(model: string, provider: JudgeProvider, providerModel: string): ResolvedJudge {
  markJudgePossible();
  return {
    ok: true,
    model,
    provider,
    target: {
      provider: provider.id,
      model: providerModel,
      endpoint: provider.endpoint ?? provider.id,
    },
  };
}

/** The variable that moves a provider's endpoint, by the provider's name in a model string. */
const PROVIDER_BASE_URLS: ReadonlyMap<string, string> = new Map([
  ["anthropic", "ANTHROPIC_BASE_URL"],
  ["openai", "OPENAI_BASE_URL"],
]);

/**
 * The first of `variables` set to what is not an http(s) URL, as an unresolved judge naming it
 * (decided before any call: fetch cannot call it); undefined when each is unset or a URL.
 */
function wrongBaseUrl(
  model: string,
  env: Readonly<Record<string, string | undefined>>,
  variables: readonly string[],
): ResolvedJudge | undefined {
  for (const variable of variables) {
    const value = env[variable];
    const problem = value ? baseUrlProblem(value) : undefined;
    if (problem) return { ok: false, model, reason: `${variable} ${problem}` };
  }
  return undefined;
}

function missing(model: string, variable: string): ResolvedJudge {
  return {
    ok: false,
    model,
    reason: `${variable} is not set: set ${variable} to judge with "${model}" (or set NICEEVAL_JUDGE_BASE_URL to an OpenAI-compatible endpoint, or register a provider)${setLaterAdvice([variable, "NICEEVAL_JUDGE_BASE_URL"])}`,
  };
}
