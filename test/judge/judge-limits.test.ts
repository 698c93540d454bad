import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bindScorer } from "../../src/eval/suite.js";
import { askForVerdict, type Checked, MAX_REPAIR_QUOTE_CHARS } from "../../src/judge/ask.js";
import { callJudge } from "../../src/judge/call.js";
import type { JudgeChatRequest } from "../../src/judge/chat.js";
import { configureJudges } from "../../src/judge/config.js";
import { judgeFromModel } from "../../src/judge/judge-from-model.js";
import { llmJudge } from "../../src/scorers/judged/llm-judge.js";
import { type FakeLlmServer, fake, startFakeLlmServer } from "../support/fake-llm-server.js";
import { isolateJudges } from "./judge-env.js";

const request = (n = 0): JudgeChatRequest => ({
  system: "judge",
  messages: [{ role: "user", content: `question ${n}` }],
  answer: { name: "verdict", description: "d", schema: { type: "object" } },
  temperature: 0,
  maxOutputTokens: 50,
});
const checkOk = (data: unknown): Checked<true> =>
  (data as { ok?: unknown } | null)?.ok === true
    ? { ok: true, value: true }
    : { ok: false, problem: '"ok" must be true' };

let server: FakeLlmServer;
let env: Awaited<ReturnType<typeof isolateJudges>>;
beforeEach(async () => {
  env = await isolateJudges();
  server = await startFakeLlmServer();
  process.env.NICEEVAL_JUDGE_BASE_URL = server.openaiBaseURL;
});
afterEach(async () => {
  await server.close();
  await env.cleanup();
});

describe("judge answer bodies are bounded", () => {
  it("makes an answer over the default 1 MiB cap unavailable, naming the size and the cap", async () => {
    server.enqueue(fake.text("x".repeat(1_500_000)));
    const result = await callJudge("m", request());
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reason).toMatch(/bytes, over the 1048576-byte cap on judge answers/);
    expect(result.reason).toMatch(/maxResponseBytes/);
    expect(server.requests).toHaveLength(1); // not retried: the same answer would come back
  });

  it("follows maxResponseBytes, and reads an answer under it as usual", async () => {
    configureJudges({ maxResponseBytes: 4096 });
    server.enqueue(fake.text("y".repeat(10_000)), fake.json({ ok: true }));
    const over = await callJudge("m", request(1));
    expect(!over.ok && over.reason).toMatch(/over the 4096-byte cap/);
    const under = await callJudge("m", request(2));
    expect(under.ok && under.response.text).toBe('{"ok":true}');
  });

  it("quotes only a bounded prefix of an unusable answer in the repair turn", async () => {
    server.enqueue(fake.text(`not json ${"z".repeat(100_000)}`), fake.json({ ok: true }));
    const answer = await askForVerdict("m", request(), checkOk);
    expect(answer.ok).toBe(true);
    const repair = server.requests[1]?.body.messages as { role: string; content: string }[];
    const quoted = repair.find((m) => m.role === "assistant")?.content ?? "";
    expect(quoted.length).toBeLessThan(MAX_REPAIR_QUOTE_CHARS + 64);
    expect(quoted).toMatch(/…\[cut \d+ characters\]$/);
  });
});

describe("only usable answers are cached", () => {
  it("asks again on the next run after an unusable answer, then serves the good one from the cache", async () => {
    server.enqueue(fake.json({ ok: false }), fake.json({ ok: "nope" }));
    const first = await askForVerdict("m", request(), checkOk);
    expect(first.ok).toBe(false);
    expect(server.requests).toHaveLength(2);

    server.enqueue(fake.json({ ok: true }));
    const second = await askForVerdict("m", request(), checkOk);
    expect(second.ok && second.cached).toBe(false);
    expect(server.requests).toHaveLength(3);

    const third = await askForVerdict("m", request(), checkOk);
    expect(third.ok && third.cached).toBe(true);
    expect(server.requests).toHaveLength(3);
  });
});

describe("the run's abort signal reaches the judge call", () => {
  it("stops a suite scorer's judge call when the attempt's signal aborts", async () => {
    configureJudges({ timeoutMs: 30_000, maxRetries: 0 });
    server.enqueue(fake.hang());
    const scorer = bindScorer(
      llmJudge<string>({
        id: "helpful",
        judge: judgeFromModel("m"),
        criteria: "Is it helpful?",
        mapOutput: ({ output }) => output,
      }),
    );
    const controller = new AbortController();
    const scoring = scorer.run(
      { output: "an answer", expected: undefined, input: "q", caseId: "c1" },
      controller.signal,
    );
    // Abort once the call has reached the server (it never answers).
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error("run aborted"));
    await expect(scoring).rejects.toThrow("run aborted");
  });
});
