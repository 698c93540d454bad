// Judge providers, settings and helpers refuse what they cannot use when they are called: a
// missing base URL or model, a misspelt option. Before, each was a bare TypeError from deep inside
// ("reading 'replace'", "reading 'provider'") or an option ignored without a word.
import { afterEach, describe, expect, it } from "vitest";
import { AuthoringError } from "../../src/errors.js";
import { createCloseQAJudge } from "../../src/judge/close-qa.js";
import { configureJudges, judgeSettings, resetJudgeConfig } from "../../src/judge/config.js";
import { judgeFromModel } from "../../src/judge/judge-from-model.js";
import { anthropicProvider } from "../../src/judge/providers/anthropic.js";
import { openAICompatibleProvider } from "../../src/judge/providers/openai-compatible.js";
import { expectations } from "../../src/scorers/judged/expectations.js";
import { openAiEmbed } from "../../src/scorers/style/openai-embed.js";

/** What `call` threw, which must be an AuthoringError. */
function refusal(call: () => unknown): string {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(AuthoringError);
    return (error as Error).message;
  }
  throw new Error("expected an AuthoringError, nothing was thrown");
}

afterEach(() => resetJudgeConfig());

describe("judge providers", () => {
  it("name a base URL left out or given under another spelling", () => {
    const missing = refusal(() => openAICompatibleProvider({} as never));
    expect(missing).toContain(
      "openAICompatibleProvider: `baseURL` must be the endpoint's base URL",
    );
    expect(missing).toContain("got undefined");
    const misspelt = refusal(() =>
      openAICompatibleProvider({ baseUrl: "http://127.0.0.1:11434/v1" } as never),
    );
    expect(misspelt).toContain('unknown key "baseUrl" (did you mean "baseURL"?)');
    const key = refusal(() =>
      openAICompatibleProvider({ baseURL: "http://127.0.0.1:1/v1", apikey: "sk-x" } as never),
    );
    expect(key).toContain('unknown key "apikey" (did you mean "apiKey"?)');
    expect(
      refusal(() => anthropicProvider({ apiKey: "k", baseUrl: "http://x" } as never)),
    ).toContain('unknown key "baseUrl" (did you mean "baseURL"?)');
  });

  it("name options that are not an object", () => {
    expect(refusal(() => openAICompatibleProvider(undefined as never))).toContain(
      "openAICompatibleProvider: options must be an object such as { baseURL:",
    );
    expect(refusal(() => anthropicProvider("key" as never))).toContain("got a string");
  });

  it("embeddings name a missing model or base URL and a misspelt option", () => {
    expect(refusal(() => openAiEmbed({ baseUrl: "http://127.0.0.1:1/v1" } as never))).toContain(
      "openAiEmbed: `model` must be a non-empty string",
    );
    expect(refusal(() => openAiEmbed({ model: "m" } as never))).toContain(
      "openAiEmbed: `baseUrl` must be the endpoint's base URL",
    );
    expect(
      refusal(() => openAiEmbed({ baseURL: "http://127.0.0.1:1/v1", model: "m" } as never)),
    ).toContain('unknown key "baseURL" (did you mean "baseUrl"?)');
  });
});

describe("configureJudges", () => {
  it("refuses a key it does not know, keeping the settings as they were", () => {
    const message = refusal(() => configureJudges({ timeout: 5_000 } as never));
    expect(message).toContain('configureJudges: unknown key "timeout" (did you mean "timeoutMs"?)');
    expect(refusal(() => configureJudges({ cacheDirectory: "/tmp/x" } as never))).toContain(
      '"cacheDirectory" (did you mean "cacheDir"?)',
    );
    expect(judgeSettings().timeoutMs).toBe(60_000);
    expect(Object.hasOwn(judgeSettings(), "timeout")).toBe(false);
    expect(configureJudges({ timeoutMs: 5_000 }).timeoutMs).toBe(5_000);
  });

  it("refuses options that are not an object", () => {
    expect(refusal(() => configureJudges(null as never))).toContain("got null");
  });
});

describe("judge models", () => {
  it("are required by the helpers that take one", () => {
    expect(refusal(() => judgeFromModel(undefined as never))).toContain(
      'judgeFromModel: `model` must be a model string such as "openai/gpt-4.1-mini" or { provider, model }',
    );
    expect(refusal(() => createCloseQAJudge(undefined as never))).toContain(
      "createCloseQAJudge: `model`",
    );
    expect(refusal(() => createCloseQAJudge({ provider: {}, model: "m" } as never))).toContain(
      "got an object",
    );
  });

  it("expectations names a missing model and a missing run", async () => {
    const run = { text: "down", calls: [] };
    await expect(
      expectations("Is the site up?", run, { should: ["names the site"] }, undefined as never),
    ).rejects.toThrow(/expectations: `model` must be a model string .*got undefined/);
    await expect(
      expectations("Is the site up?", undefined as never, { should: ["x"] }, "openai/gpt-4.1-mini"),
    ).rejects.toThrow(
      "expectations: `result` must be the run to judge, { text, calls }; got undefined",
    );
  });
});

describe("an empty model string", () => {
  it("is a judge not configured, unavailable where it is called, not a refusal where it is made", async () => {
    const { callJudge } = await import("../../src/judge/call.js");
    expect(() => judgeFromModel("")).not.toThrow();
    const answer = await callJudge("", { messages: [{ role: "user", content: "x" }] } as never);
    expect(answer).toMatchObject({ ok: false, kind: "unconfigured" });
  });
});
