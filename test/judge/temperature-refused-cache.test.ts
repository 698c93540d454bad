// A server that refuses temperature 0 with a 400 (as reasoning models do) gets the request again
// without it, and answers at the model's default temperature. That answer was cached under the
// temperature-0 request's key, so the next run reported a cache hit for an answer that is no
// temperature-0 one; only temperature-0 answers are cached, so it now is not, nor shared with a
// twin request in flight as a cache hit.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callJudge } from "../../src/judge/call.js";
import { withJudgeLedger } from "../../src/judge/ledger.js";
import { openAICompatibleProvider } from "../../src/judge/providers/openai-compatible.js";
import { type FakeLlmServer, fake, startFakeLlmServer } from "../support/fake-llm-server.js";
import { isolateJudges, judgeRequest } from "./judge-env.js";

let server: FakeLlmServer;
let env: Awaited<ReturnType<typeof isolateJudges>>;
beforeEach(async () => {
  env = await isolateJudges();
  // A reasoning model's server: any temperature is refused, a request without one answered.
  server = await startFakeLlmServer({
    latencyMs: 30,
    respond: ({ body }) =>
      body.temperature === undefined
        ? fake.json({ value: 1, rationale: "fine" })
        : {
            kind: "status",
            status: 400,
            message: "Unsupported value: 'temperature' does not support 0 with this model.",
          },
  });
});
afterEach(async () => {
  await server.close();
  await env.cleanup();
});

/** A provider as a new run makes it: it has not yet learnt that the server refuses temperature. */
const freshProvider = () => openAICompatibleProvider({ baseURL: server.openaiBaseURL });

describe("an answer to a request sent again without its temperature", () => {
  it("is not cached: the next run asks again and reports no cache hit", async () => {
    const first = await callJudge({ provider: freshProvider(), model: "m" }, judgeRequest);
    expect(first).toMatchObject({ ok: true, cached: false });
    expect(server.requests.map((r) => r.body.temperature)).toEqual([0, undefined]);
    const { result, usage } = await withJudgeLedger(() =>
      callJudge({ provider: freshProvider(), model: "m" }, judgeRequest),
    );
    expect(result).toMatchObject({ ok: true, cached: false });
    expect(usage).toMatchObject({ calls: 1, cachedCalls: 0 });
    expect(server.requests).toHaveLength(4);
  });

  it("is not shared with an identical request in flight as a cache hit", async () => {
    const provider = freshProvider();
    // The provider learns the refusal; from then on it sends no temperature at all.
    await callJudge({ provider, model: "m" }, { ...judgeRequest, system: "learn" });
    const { result, usage } = await withJudgeLedger(() =>
      Promise.all([
        callJudge({ provider, model: "m" }, judgeRequest),
        callJudge({ provider, model: "m" }, judgeRequest),
      ]),
    );
    expect(result.map((r) => r.ok && r.cached)).toEqual([false, false]);
    expect(usage).toMatchObject({ calls: 2, cachedCalls: 0 });
    expect(server.requests.slice(2).map((r) => r.body.temperature)).toEqual([undefined, undefined]);
  });
});
