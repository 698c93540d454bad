// A judge or embedding endpoint that answers a redirect: fetch followed it, sending the API key
// and the provider's headers to another server, and the answer it got there was cached as the
// first endpoint's. niceeval now follows no redirect: the judgment is unavailable at once (no
// retry, nothing cached), naming the status and where it pointed, and what to change.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callJudge } from "../../src/judge/call.js";
import { anthropicProvider } from "../../src/judge/providers/anthropic.js";
import { openAICompatibleProvider } from "../../src/judge/providers/openai-compatible.js";
import { openAiEmbed } from "../../src/scorers/style/openai-embed.js";
import { type FakeLlmServer, fake, startFakeLlmServer } from "../support/fake-llm-server.js";
import { isolateJudges, judgeRequest } from "./judge-env.js";

/** The server that redirects every request, and what it received. */
let redirector: { url: string; hits: IncomingMessage["headers"][]; close: () => Promise<void> };
/** Where the redirect points: a real model server, which must never be called. */
let elsewhere: FakeLlmServer;
let env: Awaited<ReturnType<typeof isolateJudges>>;
/** Where a request to `path` is redirected: by default, the same path on the other server. */
let locationFor: (path: string) => string;

beforeEach(async () => {
  env = await isolateJudges();
  elsewhere = await startFakeLlmServer({ respond: () => fake.json({ value: 1, rationale: "x" }) });
  locationFor = (path) => `${elsewhere.url}${path}`;
  const hits: IncomingMessage["headers"][] = [];
  const server = createServer((req, res) => {
    hits.push(req.headers);
    req.resume();
    res.writeHead(307, { location: locationFor(req.url ?? "") });
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  redirector = { url, hits, close: () => new Promise((resolve) => server.close(() => resolve())) };
});
afterEach(async () => {
  await redirector.close();
  await elsewhere.close();
  await env.cleanup();
});

const request = judgeRequest;

describe("an endpoint that answers a redirect", () => {
  it("is not followed with the Anthropic key: unavailable at once, not retried, not cached", async () => {
    const provider = anthropicProvider({
      apiKey: "sk-ant-api03-TOPSECRET",
      baseURL: redirector.url,
    });
    const first = await callJudge({ provider, model: "claude-haiku-4.5" }, request);
    expect(first.ok).toBe(false);
    const reason = !first.ok ? first.reason : "";
    expect(reason).toContain(
      `Anthropic endpoint ${redirector.url}/v1/messages answered HTTP 307, a redirect to ${elsewhere.url}/v1/messages;`,
    );
    expect(reason).toContain("set the base URL to it");
    expect(reason).not.toMatch(/gave up after/);
    expect(redirector.hits).toHaveLength(1);
    expect(elsewhere.requests).toHaveLength(0);
    // Nothing was cached: the same question is asked of the endpoint again.
    const again = await callJudge({ provider, model: "claude-haiku-4.5" }, request);
    expect(again).toMatchObject({ ok: false, usage: { calls: 1, cachedCalls: 0 } });
    expect(redirector.hits).toHaveLength(2);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it("is not followed with an OpenAI-compatible provider's headers, nor by an embedding call", async () => {
    const provider = openAICompatibleProvider({
      baseURL: `${redirector.url}/v1`,
      apiKey: "sk-proj-BEARERSECRET",
      headers: { "api-key": "azure-HEADERSECRET" },
    });
    const judged = await callJudge({ provider, model: "m" }, request);
    expect(!judged.ok && judged.reason).toContain("answered HTTP 307, a redirect to");
    const embed = openAiEmbed({ baseUrl: `${redirector.url}/v1`, apiKey: "sk-x", model: "e" });
    await expect(embed(["a text"])).rejects.toThrow(
      `embeddings endpoint ${redirector.url}/v1/embeddings answered HTTP 307, a redirect to ${elsewhere.url}/v1/embeddings`,
    );
    expect(redirector.hits).toHaveLength(2);
    expect(redirector.hits[0]?.["api-key"]).toBe("azure-HEADERSECRET");
    expect(elsewhere.requests).toHaveLength(0);
  });

  it("names where the redirect points with its credentials and keys masked", async () => {
    locationFor = (path) =>
      `${elsewhere.url.replace("http://", "http://bob:LOCATIONSECRET@")}${path}?key=QUERYSECRET`;
    const provider = openAICompatibleProvider({ baseURL: `${redirector.url}/v1` });
    const judged = await callJudge({ provider, model: "m" }, request);
    const reason = !judged.ok ? judged.reason : "";
    expect(reason).toContain(
      `a redirect to ${elsewhere.url.replace("http://", "http://bob:***@")}/v1/chat/completions?key=***;`,
    );
    expect(reason).not.toMatch(/LOCATIONSECRET|QUERYSECRET/);
    expect(elsewhere.requests).toHaveLength(0);
  });
});
