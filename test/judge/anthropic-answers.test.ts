// Answers of the Anthropic Messages protocol that look whole but are not: the verdict's tool
// called when the model's context window had filled. Judged unavailable, saying so, never taken
// as a verdict nor cached.
import { describe, expect, it } from "vitest";
import { judgeFromModel } from "../../src/judge/judge-from-model.js";
import { withJudgeLedger } from "../../src/judge/ledger.js";
import { JudgeUnavailableError } from "../../src/judge/unavailable.js";
import { fake } from "../support/fake-llm-server.js";
import { fakeJudgeServer } from "./judge-env.js";

const server = fakeJudgeServer("anthropic");

describe("Anthropic answers", () => {
  it("reports a verdict given as the context window filled as unavailable, counts its tokens, and caches nothing", async () => {
    const judge = judgeFromModel("anthropic/claude-haiku-4.5");
    const ask = () => judge({ output: "a long transcript", criteria: "Is it polite?" });
    server().enqueue(fake.contextWindow({ value: 0.9 }));
    const { result, usage } = await withJudgeLedger(() => ask().catch((e: unknown) => e));
    expect(result).toBeInstanceOf(JudgeUnavailableError);
    expect((result as Error).message).toContain('stop_reason "model_context_window_exceeded"');
    expect(server().requests).toHaveLength(1);
    expect(usage.inputTokens).toBeGreaterThan(0);

    server().enqueue(fake.json({ value: 0.8, rationale: "polite throughout" }));
    await expect(ask()).resolves.toEqual({ value: 0.8, rationale: "polite throughout" });
    expect(server().requests).toHaveLength(2);
  });
});
