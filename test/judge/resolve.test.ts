import { describe, expect, it } from "vitest";
import { openAICompatibleProvider } from "../../src/judge/providers/openai-compatible.js";
import { registerJudgeProvider, resolveJudge } from "../../src/judge/resolve.js";

describe("resolveJudge", () => {
  it("names the variable to set when a key is missing", () => {
    const anthropic = resolveJudge("anthropic/claude-haiku-4.5", {});
    expect(anthropic.ok).toBe(false);
    expect(!anthropic.ok && anthropic.reason).toContain("set ANTHROPIC_API_KEY");
    const openai = resolveJudge("openai/gpt-4.1-mini", {});
    expect(!openai.ok && openai.reason).toContain("set OPENAI_API_KEY");
    const other = resolveJudge("mistral/small", {});
    expect(!other.ok && other.reason).toContain("NICEEVAL_JUDGE_BASE_URL");
  });

  it("says how to write a model named provider:model, as other tools write it", () => {
    for (const [given, meant] of [
      ["openai:gpt-4o-mini", "openai/gpt-4o-mini"],
      ["anthropic:claude-3", "anthropic/claude-3"],
    ]) {
      const resolved = resolveJudge(given!, { OPENAI_API_KEY: "k", ANTHROPIC_API_KEY: "k" });
      expect(resolved.ok).toBe(false);
      expect(!resolved.ok && resolved.reason).toContain(`write it "${meant}"`);
      expect(!resolved.ok && resolved.reason).not.toContain("registerJudgeProvider");
    }
  });

  it("refuses a provider with no model after its slash, before any call", () => {
    const empty = resolveJudge("anthropic/", { ANTHROPIC_API_KEY: "k" });
    expect(empty).toEqual({
      ok: false,
      model: "anthropic/",
      reason:
        'judge model "anthropic/" names no model after "anthropic/"; write it as "anthropic/<model>", such as "anthropic/claude-haiku-4.5"',
    });
  });

  it("refuses, before any call, a base URL in the environment that is not an http(s) URL, naming the variable", () => {
    for (const [variable, model, env] of [
      ["NICEEVAL_JUDGE_BASE_URL", "m", {}],
      ["ANTHROPIC_BASE_URL", "anthropic/claude-haiku-4.5", { ANTHROPIC_API_KEY: "k" }],
      ["OPENAI_BASE_URL", "openai/gpt-4.1-mini", { OPENAI_API_KEY: "k" }],
    ] as const) {
      const resolved = resolveJudge(model, { ...env, [variable]: "localhost:11434/v1" });
      expect(resolved.ok).toBe(false);
      expect(!resolved.ok && resolved.reason).toBe(
        `${variable} is "localhost:11434/v1", which is not an http(s) URL: write it with its scheme, such as "http://localhost:11434/v1"`,
      );
    }
    // Another provider's model is not held to those variables.
    const other = resolveJudge("constructor/x", { OPENAI_BASE_URL: "localhost:1/v1" });
    expect(!other.ok && other.reason).toContain('no judge provider for "constructor/x"');
  });

  it("refuses a provider made with a base URL that is not an http(s) URL", () => {
    expect(() => openAICompatibleProvider({ baseURL: "127.0.0.1:8080/v1" })).toThrow(
      'openAICompatibleProvider: `baseURL` is "127.0.0.1:8080/v1", which is not an http(s) URL: write it with its scheme, such as "http://127.0.0.1:8080/v1"',
    );
  });

  it("maps providers and model names from the environment", () => {
    const anthropic = resolveJudge("anthropic/claude-haiku-4.5", { ANTHROPIC_API_KEY: "k" });
    expect(anthropic.ok && anthropic.target).toEqual({
      provider: "anthropic@https://api.anthropic.com",
      model: "claude-haiku-4.5",
      endpoint: "https://api.anthropic.com",
    });
    const openai = resolveJudge("openai/gpt-4.1-mini", {
      OPENAI_API_KEY: "k",
      OPENAI_BASE_URL: "http://proxy/v1",
    });
    expect(openai.ok && openai.target.model).toBe("gpt-4.1-mini");
    expect(openai.ok && openai.target.endpoint).toBe("http://proxy/v1");
    const gateway = resolveJudge("anthropic/claude-haiku-4.5", {
      NICEEVAL_JUDGE_BASE_URL: "http://gw/v1",
      ANTHROPIC_API_KEY: "k",
    });
    expect(gateway.ok && gateway.target).toMatchObject({
      model: "anthropic/claude-haiku-4.5",
      endpoint: "http://gw/v1",
    });
  });

  it("prefers registered providers, by whole string or by prefix, and unregisters", () => {
    const provider = openAICompatibleProvider({ baseURL: "http://local/v1" });
    const off = registerJudgeProvider("anthropic", provider);
    const exactOff = registerJudgeProvider("my-judge", provider);
    try {
      const byPrefix = resolveJudge("anthropic/claude-haiku-4.5", { ANTHROPIC_API_KEY: "k" });
      expect(byPrefix.ok && byPrefix.target).toMatchObject({
        endpoint: "http://local/v1",
        model: "claude-haiku-4.5",
      });
      const exact = resolveJudge("my-judge", {});
      expect(exact.ok && exact.target.model).toBe("my-judge");
    } finally {
      off();
      exactOff();
    }
    expect(resolveJudge("my-judge", {}).ok).toBe(false);
  });

  it("rejects a provider that is not one", () => {
    expect(() => registerJudgeProvider("x", {} as never)).toThrow(/registerJudgeProvider\("x"\)/);
  });
});
