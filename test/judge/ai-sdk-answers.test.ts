// An AI SDK judge whose answer the provider's content filter withheld (a real AI SDK provider,
// the gateway's, against a loopback server): unavailable at once, saying so, with no repair turn.
import { createGateway } from "ai";
import { describe, expect, it } from "vitest";
import { judgeFromAiSdk } from "../../src/ai-sdk/index.js";
import { withJudgeLedger } from "../../src/judge/ledger.js";
import { JudgeUnavailableError } from "../../src/judge/unavailable.js";
import { fake } from "../support/fake-llm-server.js";
import { fakeJudgeServer } from "./judge-env.js";

const server = fakeJudgeServer("none");

describe("an AI SDK judge's answers", () => {
  it("reports an answer the content filter withheld as unavailable, naming the finish reason, without a repair turn", async () => {
    server().enqueue(fake.contentFilter(), fake.contentFilter());
    const judge = judgeFromAiSdk(
      createGateway({ baseURL: server().gatewayBaseURL, apiKey: "k" })("m"),
    );
    const { result, usage } = await withJudgeLedger(() =>
      judge({ output: "The site is down.", criteria: "Helpful?" }).catch((e: unknown) => e),
    );
    expect(result).toBeInstanceOf(JudgeUnavailableError);
    expect((result as Error).message).toContain('finishReason "content-filter"');
    expect(server().requests).toHaveLength(1);
    expect(usage.inputTokens).toBeGreaterThan(0);
  });
});
