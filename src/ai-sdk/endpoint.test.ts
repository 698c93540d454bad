import type { LanguageModel } from "ai";
import { describe, expect, it } from "vitest";
import { aiSdkEndpoint } from "./endpoint.js";

/** A model as the AI SDK's provider packages make one: a `config` beside the spec's fields. */
const model = (config: unknown) =>
  ({
    specificationVersion: "v3",
    provider: "openai.chat",
    modelId: "gpt-judge",
    supportedUrls: {},
    doGenerate: async () => {
      throw new Error("not called");
    },
    doStream: async () => {
      throw new Error("not called");
    },
    config,
  }) as unknown as LanguageModel;

describe("aiSdkEndpoint", () => {
  it("reads the base URL the provider packages keep: url({ path, modelId }), baseURL, baseUrl", () => {
    const url = ({ path }: { path: string }) => `http://127.0.0.1:8787/v1${path}`;
    expect(aiSdkEndpoint(model({ url }))).toBe("http://127.0.0.1:8787/v1");
    expect(aiSdkEndpoint(model({ baseURL: "https://api.anthropic.com/v1/" }))).toBe(
      "https://api.anthropic.com/v1",
    );
    expect(aiSdkEndpoint(model({ baseUrl: () => "https://bedrock.example" }))).toBe(
      "https://bedrock.example",
    );
  });

  it("masks a password in the URL and says nothing for a model that keeps none", () => {
    expect(aiSdkEndpoint(model({ baseURL: "https://user:secret@proxy.example/v1" }))).toBe(
      "https://user:***@proxy.example/v1",
    );
    expect(aiSdkEndpoint(model(undefined))).toBeUndefined();
    expect(
      aiSdkEndpoint(
        model({
          url: () => {
            throw new Error("no deployment");
          },
        }),
      ),
    ).toBeUndefined();
    expect(aiSdkEndpoint("openai/gpt-5")).toBeUndefined();
  });
});
