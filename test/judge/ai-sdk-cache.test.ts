// An AI SDK judge's cached verdicts belong to the server that gave them: the same provider type
// and model id at another base URL is asked, not answered from the first server's cache.
import { createGateway } from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { judgeFromAiSdk } from "../../src/ai-sdk/index.js";
import { withJudgeLedger } from "../../src/judge/ledger.js";
import { type FakeLlmServer, fake, startFakeLlmServer } from "../support/fake-llm-server.js";
import { isolateJudges } from "./judge-env.js";

let env: Awaited<ReturnType<typeof isolateJudges>>;
let serverA: FakeLlmServer;
let serverB: FakeLlmServer;
beforeEach(async () => {
  env = await isolateJudges();
  serverA = await startFakeLlmServer({
    respond: () => fake.json({ value: 0.8, rationale: "from A" }),
  });
  serverB = await startFakeLlmServer({
    respond: () => fake.json({ value: 0, rationale: "from B" }),
  });
});
afterEach(async () => {
  await serverA.close();
  await serverB.close();
  await env.cleanup();
});

/** A judge made as a user makes one: a real AI SDK provider at `baseURL`, the same model id. */
const judgeAt = (baseURL: string) =>
  judgeFromAiSdk(createGateway({ baseURL, apiKey: "k" })("gpt-judge"));

const ask = (baseURL: string) =>
  withJudgeLedger(() => judgeAt(baseURL)({ output: "The site is down.", criteria: "Helpful?" }));

describe("the disk cache of an AI SDK judge", () => {
  it("keys on the provider's base URL: another server is asked, not answered from the first's cache", async () => {
    const a = await ask(serverA.gatewayBaseURL);
    expect(a.result).toEqual({ value: 0.8, rationale: "from A" });
    expect(a.usage).toMatchObject({ calls: 1, cachedCalls: 0 });

    const b = await ask(serverB.gatewayBaseURL);
    expect(b.result).toEqual({ value: 0, rationale: "from B" });
    expect(b.usage).toMatchObject({ calls: 1, cachedCalls: 0 });
    expect(serverB.requests).toHaveLength(1);
  });

  it("keeps its key for the same configuration: a judge made again at the same URL is answered from the cache", async () => {
    await ask(serverA.gatewayBaseURL);
    await ask(serverB.gatewayBaseURL);
    // A new provider object, as the next run makes, with a trailing slash the SDK strips.
    const again = await ask(`${serverA.gatewayBaseURL}/`);
    expect(again.result).toEqual({ value: 0.8, rationale: "from A" });
    expect(again.usage).toMatchObject({ calls: 0, cachedCalls: 1 });
    expect(serverA.requests).toHaveLength(1);
    expect(serverB.requests).toHaveLength(1);
  });
});
