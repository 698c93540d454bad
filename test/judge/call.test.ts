import FakeTimers from "@sinonjs/fake-timers";
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import { askForVerdict } from "../../src/judge/ask.js";
import { callJudge } from "../../src/judge/call.js";
import type { JudgeChatRequest } from "../../src/judge/chat.js";
import { configureJudges } from "../../src/judge/config.js";
import { withJudgeLedger } from "../../src/judge/ledger.js";
import { anthropicProvider } from "../../src/judge/providers/anthropic.js";
import { openAICompatibleProvider } from "../../src/judge/providers/openai-compatible.js";
import { registerJudgeProvider } from "../../src/judge/resolve.js";
import { schedulerFor } from "../../src/judge/retries.js";
import { type FakeLlmServer, fake, startFakeLlmServer } from "../support/fake-llm-server.js";
import { freePort } from "../support/server.js";
import { isolateJudges } from "./judge-env.js";

const request = (n = 0, temperature = 0): JudgeChatRequest => ({
  system: "judge",
  messages: [{ role: "user", content: `question ${n}` }],
  answer: { name: "verdict", description: "d", schema: { type: "object" } },
  temperature,
  maxOutputTokens: 50,
});

/**
 * A provider "claude" speaking the Messages API to the fake server, for this test (the
 * environment sends every model to the server's OpenAI side).
 */
function useClaudeProvider(): void {
  onTestFinished(
    registerJudgeProvider(
      "claude",
      anthropicProvider({ apiKey: "k", baseURL: server.anthropicBaseURL }),
    ),
  );
}

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

describe("dependable judge calls", () => {
  it("waits out a 429's Retry-After, then succeeds, counting the retry", async () => {
    server.enqueue(fake.rateLimited(1), fake.json({ ok: true }));
    const started = Date.now();
    const { result, usage } = await withJudgeLedger(() => callJudge("m", request()));
    expect(result.ok).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(usage).toMatchObject({ calls: 1, retries: 1, cachedCalls: 0 });
  });

  it("retries a 500 and a truncated body, then answers", async () => {
    server.enqueue(fake.serverError(), fake.truncatedBody(), fake.json({ ok: 1 }));
    const result = await callJudge("m", request());
    expect(result.ok && result.response.text).toBe('{"ok":1}');
    expect(result.usage.retries).toBe(2);
  });

  it("gives up on a hanging call after the timeout and tries again", async () => {
    configureJudges({ timeoutMs: 150 });
    server.enqueue(fake.hang(), fake.json({ ok: 2 }));
    const result = await callJudge("m", request());
    expect(result.ok).toBe(true);
    expect(result.usage.retries).toBe(1);
  });

  it("slows the endpoint after a try that timed out, as after a 429 (a server queueing calls)", async () => {
    configureJudges({ timeoutMs: 150 });
    const scheduler = schedulerFor(server.openaiBaseURL);
    const before = scheduler.state().decreases;
    server.enqueue(fake.hang(), fake.json({ ok: 3 }));
    expect((await callJudge("m", request(31))).ok).toBe(true);
    expect(scheduler.state().decreases).toBe(before + 1);
  });

  it("is a failed result with the reason when every try times out (never a thrown error)", async () => {
    configureJudges({ timeoutMs: 80, maxRetries: 1 });
    server.enqueue(fake.hang(), fake.hang());
    const result = await callJudge("m", request());
    expect(result).toMatchObject({ ok: false, kind: "failed" });
    expect(!result.ok && result.reason).toMatch(/no answer within 80 ms.*gave up after 2 tries/);
  });

  it("does not retry an authentication error", async () => {
    server.enqueue({ kind: "status", status: 401, message: "Incorrect API key provided" });
    const result = await callJudge("m", request());
    expect(!result.ok && result.reason).toMatch(
      /HTTP 401: Incorrect API key provided \(check NICEEVAL_JUDGE_API_KEY: it is not set, so no API key was sent\)/,
    );
    expect(server.requests).toHaveLength(1);
  });

  it("names where a refused key came from (the variable or the option), never the key", async () => {
    delete process.env.NICEEVAL_JUDGE_BASE_URL;
    const refused = { kind: "status", status: 401, message: "invalid x-api-key" } as const;
    const reasons: string[] = [];
    const reason = async (model: string) => {
      server.enqueue(refused);
      const result = await callJudge(model, request(reasons.length));
      reasons.push(result.ok ? "answered" : result.reason);
    };
    process.env.NICEEVAL_JUDGE_BASE_URL = server.openaiBaseURL;
    process.env.NICEEVAL_JUDGE_API_KEY = "sk-judge-secret";
    await reason("m");
    delete process.env.NICEEVAL_JUDGE_BASE_URL;
    process.env.OPENAI_API_KEY = "sk-openai-secret";
    process.env.OPENAI_BASE_URL = server.openaiBaseURL;
    await reason("openai/m");
    process.env.ANTHROPIC_API_KEY = "sk-ant-secret";
    process.env.ANTHROPIC_BASE_URL = server.anthropicBaseURL;
    await reason("anthropic/m");
    const remove = registerJudgeProvider(
      "coded",
      openAICompatibleProvider({ baseURL: server.openaiBaseURL, apiKey: "sk-coded-secret" }),
    );
    await reason("coded/m");
    remove();
    expect(reasons.map((r) => /\(check ([^)]*)\)$/.exec(r)?.[1])).toEqual([
      "the API key in NICEEVAL_JUDGE_API_KEY",
      "the API key in OPENAI_API_KEY",
      "the API key in ANTHROPIC_API_KEY",
      "the apiKey given to openAICompatibleProvider",
    ]);
    expect(reasons.join("\n")).not.toMatch(/secret/);
  });

  it("does not retry a 429 that means the quota is spent", async () => {
    server.enqueue({
      kind: "status",
      status: 429,
      errorType: "insufficient_quota",
      message: "quota exceeded",
    });
    const result = await callJudge("m", request());
    expect(result.ok).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it("stops at once when the caller aborts", async () => {
    server.enqueue(fake.hang());
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("run cancelled")), 50);
    await expect(callJudge("m", request(), { signal: controller.signal })).rejects.toThrow(
      "run cancelled",
    );
  });

  it("counts a call its caller cut off, with the retries it made (a time limit's judge usage)", async () => {
    server.enqueue(fake.serverError(), fake.hang());
    const controller = new AbortController();
    const { result, usage } = await withJudgeLedger(async () => {
      const call = callJudge("m", request(), { signal: controller.signal }).catch(
        (error: Error) => error.message,
      );
      // The 500 is retried; the second try hangs until the caller gives up.
      while (server.requests.length < 2) await new Promise((r) => setTimeout(r, 10));
      controller.abort(new Error("time limit"));
      return call;
    });
    expect(result).toBe("time limit");
    expect(usage).toMatchObject({ calls: 1, retries: 1 });
  });

  it("keeps at most `concurrency` calls in flight per endpoint", async () => {
    await server.close();
    server = await startFakeLlmServer({ latencyMs: 20, respond: () => fake.json({ ok: true }) });
    process.env.NICEEVAL_JUDGE_BASE_URL = server.openaiBaseURL;
    configureJudges({ concurrency: 3 });
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => callJudge("m", request(i))),
    );
    expect(results.every((r) => r.ok)).toBe(true);
    expect(server.maxInFlight).toBe(3);
  });

  it("caches temperature-0 answers on disk; --no-cache and other temperatures bypass it", async () => {
    server.enqueue(fake.json({ a: 1 }), fake.json({ a: 2 }), fake.json({ a: 3 }));
    await callJudge("m", request(1));
    const hit = await callJudge("m", request(1));
    expect(hit).toMatchObject({ ok: true, cached: true, usage: { calls: 0, cachedCalls: 1 } });
    expect(hit.ok && hit.response.text).toBe('{"a":1}');
    await callJudge("m", request(1, 0.7));
    configureJudges({ cache: false });
    const fresh = await callJudge("m", request(1));
    expect(fresh.ok && fresh.cached).toBe(false);
    expect(server.requests).toHaveLength(3);
  });

  it("caches an answer repaired on the second turn as the first turn's, so the next ask makes no call", async () => {
    // First turn: prose that is not the verdict; the repair turn: the verdict.
    server.enqueue(fake.text("It looks fine to me."), fake.json({ ok: true }));
    const check = (data: unknown) =>
      (data as { ok?: unknown } | null)?.ok === true
        ? { ok: true as const, value: true }
        : { ok: false as const, problem: "no ok" };
    const first = await askForVerdict("m", request(7), check);
    expect(first).toMatchObject({ ok: true, cached: false });
    expect(server.requests).toHaveLength(2);
    const again = await withJudgeLedger(() => askForVerdict("m", request(7), check));
    expect(again.result).toMatchObject({ ok: true, value: true, cached: true });
    expect(again.usage).toMatchObject({ calls: 0, cachedCalls: 1 });
    expect(server.requests).toHaveLength(2);
  });

  it("does not try again for a while an endpoint no call could reach, so a wrong base URL costs one call's retries", async () => {
    configureJudges({ maxRetries: 1, retryBaseMs: 10 });
    const down = openAICompatibleProvider({ baseURL: `http://127.0.0.1:${await freePort()}/v1` });
    const first = await callJudge({ provider: down, model: "m" }, request(1));
    expect(first.ok).toBe(false);
    expect(!first.ok && first.reason).toMatch(/could not be reached .*\(gave up after 2 tries\)$/);
    const { result: second, usage } = await withJudgeLedger(() =>
      callJudge({ provider: down, model: "m" }, request(2)),
    );
    expect(!second.ok && second.reason).toMatch(
      /could not be reached .*; not tried again for \d+ s \(the endpoint could not be reached by an earlier call\)$/,
    );
    expect(usage).toMatchObject({ calls: 0, retries: 0 });
  });

  it("tries once a base URL on a port fetch refuses, and says which port and why", async () => {
    configureJudges({ maxRetries: 3, retryBaseMs: 10 });
    // Port 6000 is on the list of ports fetch never connects to: no request leaves this process.
    const blocked = openAICompatibleProvider({ baseURL: "http://127.0.0.1:6000/v1" });
    const { result, usage } = await withJudgeLedger(() =>
      callJudge({ provider: blocked, model: "m" }, request(1)),
    );
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(
      /on port 6000, which fetch refuses to connect to .*another port/,
    );
    expect(!result.ok && result.reason).not.toMatch(/gave up after/);
    expect(usage).toMatchObject({ calls: 1, retries: 0 });
  });

  // An attempt may keep a fake clock installed while others are judged (runner/globals.ts,
  // holdGlobals): the time an endpoint stays skipped is kept on the real clock.
  it("skips an unreachable endpoint for its 30 s, marked or asked while the global Date is fake", async () => {
    configureJudges({ maxRetries: 1, retryBaseMs: 10 });
    const down = openAICompatibleProvider({ baseURL: `http://127.0.0.1:${await freePort()}/v1` });
    const faked = FakeTimers.install({ toFake: ["Date"] });
    let first: Awaited<ReturnType<typeof callJudge>>;
    try {
      first = await callJudge({ provider: down, model: "m" }, request(1));
    } finally {
      faked.uninstall();
    }
    expect(!first.ok && first.reason).toMatch(/\(gave up after 2 tries\)$/);
    const skipped =
      /; not tried again for (\d+) s \(the endpoint could not be reached by an earlier call\)$/;
    const second = await withJudgeLedger(() =>
      callJudge({ provider: down, model: "m" }, request(2)),
    );
    expect(!second.result.ok && second.result.reason).toMatch(skipped);
    expect(second.usage).toMatchObject({ calls: 0 });
    const fakedAgain = FakeTimers.install({ toFake: ["Date"] });
    try {
      const third = await callJudge({ provider: down, model: "m" }, request(3));
      const seconds = Number((!third.ok && third.reason.match(skipped)?.[1]) || Number.NaN);
      expect(seconds).toBeGreaterThan(0);
      expect(seconds).toBeLessThanOrEqual(30);
    } finally {
      fakedAgain.uninstall();
    }
  });

  it("tries a connection dropped after the request again, and keeps calling the endpoint after", async () => {
    configureJudges({ maxRetries: 1, retryBaseMs: 10 });
    server.enqueue(fake.drop(), fake.drop(), fake.drop(), fake.json({ ok: true }));
    const first = await callJudge("m", request(1));
    expect(!first.ok && first.reason).toMatch(
      /dropped the connection before answering \(.*\) \(gave up after 2 tries\)$/,
    );
    expect(!first.ok && first.reason).not.toContain("check the base URL");
    // The endpoint was reached: the next call is made, and its retry gets the answer.
    const second = await callJudge("m", request(2));
    expect(second.ok).toBe(true);
    expect(server.requests).toHaveLength(4);
  });

  it("shares one call between identical requests in flight", async () => {
    await server.close();
    server = await startFakeLlmServer({ latencyMs: 30, respond: () => fake.json({ ok: true }) });
    process.env.NICEEVAL_JUDGE_BASE_URL = server.openaiBaseURL;
    const { usage } = await withJudgeLedger(() =>
      Promise.all([callJudge("m", request()), callJudge("m", request())]),
    );
    expect(server.requests).toHaveLength(1);
    expect(usage).toMatchObject({ calls: 1, cachedCalls: 1 });
  });

  it("shares no unusable answer: a twin asks for itself, and no cache hit is counted", async () => {
    await server.close();
    server = await startFakeLlmServer({ latencyMs: 30, respond: () => fake.json({ bad: true }) });
    process.env.NICEEVAL_JUDGE_BASE_URL = server.openaiBaseURL;
    const accept = () => false;
    const { usage } = await withJudgeLedger(() =>
      Promise.all([callJudge("m", request(), { accept }), callJudge("m", request(), { accept })]),
    );
    expect(server.requests).toHaveLength(2);
    expect(usage).toMatchObject({ calls: 2, cachedCalls: 0 });
  });

  it("lets a waiting twin go on alone when the caller it shared with aborts", async () => {
    await server.close();
    server = await startFakeLlmServer({ latencyMs: 60, respond: () => fake.json({ ok: true }) });
    process.env.NICEEVAL_JUDGE_BASE_URL = server.openaiBaseURL;
    const controller = new AbortController();
    const leader = callJudge("m", request(), { signal: controller.signal });
    const twin = callJudge("m", request());
    setTimeout(() => controller.abort(new Error("cancelled")), 10);
    await expect(leader).rejects.toThrow("cancelled");
    const result = await twin;
    expect(result).toMatchObject({ ok: true, cached: false });
  });

  it("prices calls from the price table", async () => {
    configureJudges({ prices: { m: { inputPerMTok: 1_000_000, outputPerMTok: 2_000_000 } } });
    server.enqueue(fake.json({ ok: true }));
    const result = await callJudge("m", request());
    const { inputTokens, outputTokens, costUsd } = result.usage;
    expect(costUsd).toBeCloseTo(inputTokens + 2 * outputTokens);
  });

  it("finds a price under the model string, the model after its provider's name, or the name its API receives", async () => {
    delete process.env.NICEEVAL_JUDGE_BASE_URL;
    process.env.ANTHROPIC_API_KEY = "k";
    process.env.ANTHROPIC_BASE_URL = server.anthropicBaseURL;
    const price = { inputPerMTok: 1_000_000, outputPerMTok: 2_000_000 };
    const ask = async (prices: Record<string, typeof price>) => {
      configureJudges({ cache: false, prices });
      server.enqueue(fake.json({ ok: true }));
      return (await callJudge("anthropic/claude-haiku-4.5", request())).usage;
    };
    for (const key of ["anthropic/claude-haiku-4.5", "claude-haiku-4.5", "claude-haiku-4-5"]) {
      const usage = await ask({ [key]: price });
      expect(usage.costUsd, key).toBeCloseTo(usage.inputTokens + 2 * usage.outputTokens);
      expect(usage.unpriced, key).toBeUndefined();
    }
    // The model string first: a price listed under it wins over one under the API's name.
    const first = await ask({
      "claude-haiku-4-5": price,
      "anthropic/claude-haiku-4.5": { inputPerMTok: 0, outputPerMTok: 0 },
    });
    expect(first.costUsd).toBe(0);
    // A table without the model: no cost, and the call counted as unpriced under its model string.
    const unpriced = await ask({ "openai/gpt-4.1-mini": price });
    expect(unpriced.costUsd).toBeUndefined();
    expect(unpriced.unpriced).toEqual({
      calls: 1,
      inputTokens: unpriced.inputTokens,
      outputTokens: unpriced.outputTokens,
      models: ["anthropic/claude-haiku-4.5"],
    });
    // No table at all: no cost is claimed, so nothing is unpriced.
    expect((await ask({})).unpriced).toBeUndefined();
  });

  it("loses nothing against a rate-limited endpoint: every 429 is retried after its Retry-After", async () => {
    await server.close();
    server = await startFakeLlmServer({
      rateLimit: { perWindow: 5, windowMs: 150 },
      respond: () => fake.json({ ok: true }),
    });
    process.env.NICEEVAL_JUDGE_BASE_URL = server.openaiBaseURL;
    configureJudges({ maxRetries: 20 });
    const scheduler = schedulerFor(server.openaiBaseURL);
    let lowest = scheduler.currentLimit;
    const sampler = setInterval(() => {
      lowest = Math.min(lowest, scheduler.currentLimit);
    }, 2);
    const { result, usage } = await withJudgeLedger(() =>
      Promise.all(Array.from({ length: 25 }, (_, i) => callJudge("m", request(i)))),
    ).finally(() => clearInterval(sampler));
    expect(result.every((r) => r.ok)).toBe(true);
    expect(server.rejected).toBeGreaterThan(0);
    expect(usage.retries).toBe(server.rejected);
    expect(lowest).toBeLessThan(8);
  });

  it("retries Anthropic's 529 overloaded answer", async () => {
    process.env.NICEEVAL_JUDGE_BASE_URL = "";
    process.env.ANTHROPIC_API_KEY = "k";
    process.env.ANTHROPIC_BASE_URL = server.anthropicBaseURL;
    server.enqueue(
      { kind: "status", status: 529, errorType: "overloaded_error", message: "Overloaded" },
      fake.json({ v: 1 }),
    );
    const result = await callJudge("anthropic/claude-haiku-4.5", request());
    expect(result.ok && result.response.data).toEqual({ v: 1 });
    expect(result.usage.retries).toBe(1);
    expect(server.requests.at(-1)?.body.model).toBe("claude-haiku-4-5");
  });

  it("says an unusable answer was cut off at the token limit, or was a tool call", async () => {
    process.env.ANTHROPIC_API_KEY = "k";
    process.env.ANTHROPIC_BASE_URL = server.anthropicBaseURL;
    const check = () => ({ ok: true as const, value: true });
    for (const [model, limit] of [
      ["m", 'finish_reason "length"'],
      ["anthropic/claude-haiku-4.5", 'stop_reason "max_tokens"'],
    ] as const) {
      if (model !== "m") process.env.NICEEVAL_JUDGE_BASE_URL = "";
      server.enqueue(fake.cutOff('{"verdict": "the answer goes on and'), fake.cutOff("{"));
      const result = await askForVerdict(model, request(11), check);
      expect(!result.ok && result.reason).toContain(
        `after a repair turn: not valid JSON: no complete JSON object in the answer`,
      );
      expect(!result.ok && result.reason).toContain(
        `(the answer was cut off at the output token limit (${limit}))`,
      );
    }
    // What came parses and passes the check, but the judge was not done: unusable all the same.
    for (const [model, limit] of [
      ["m", 'finish_reason "length"'],
      ["anthropic/claude-haiku-4.5", 'stop_reason "max_tokens"'],
    ] as const) {
      process.env.NICEEVAL_JUDGE_BASE_URL = model === "m" ? server.openaiBaseURL : "";
      server.enqueue(fake.cutOff('{"value": 0.9}'), fake.cutOff('{"value": 0.9}'));
      const result = await askForVerdict(model, request(14), check);
      expect(!result.ok && result.reason).toContain(
        `after a repair turn: the verdict is incomplete (the answer was cut off at the output token limit (${limit}))`,
      );
    }
    process.env.NICEEVAL_JUDGE_BASE_URL = server.openaiBaseURL;
    server.enqueue(fake.toolCall("lookup"), fake.json({ ok: true }));
    const repaired = await askForVerdict("m", request(12), check);
    expect(repaired.ok).toBe(true);
    // The repair turn told the model why its first answer was unusable.
    expect(JSON.stringify(server.requests.at(-1)?.body.messages)).toContain(
      'the model called the tool \\"lookup\\" instead of answering in text (finish_reason \\"tool_calls\\")',
    );
    // Anthropic: a tool_use block of another name says what came, not only "the answer was empty".
    process.env.NICEEVAL_JUDGE_BASE_URL = "";
    server.enqueue(fake.toolCall("lookup"), fake.toolCall("search"));
    const twice = await askForVerdict("anthropic/claude-haiku-4.5", request(13), check);
    expect(!twice.ok && twice.reason).toBe(
      `the judge's answer from ${server.anthropicBaseURL} was unusable twice (first: not valid JSON: the answer was empty (the model called the tool "lookup" instead of "${request(13).answer.name}" (stop_reason "tool_use")); after a repair turn: not valid JSON: the answer was empty (the model called the tool "search" instead of "${request(13).answer.name}" (stop_reason "tool_use")))`,
    );
  });

  it("counts a refusal's tokens and cost, and asks no repair turn of it (OpenAI and Anthropic)", async () => {
    process.env.ANTHROPIC_API_KEY = "k";
    process.env.ANTHROPIC_BASE_URL = server.anthropicBaseURL;
    const price = { inputPerMTok: 1, outputPerMTok: 1 };
    configureJudges({ prices: { m: price, "anthropic/claude-haiku-4.5": price } });
    const check = () => ({ ok: true as const, value: true });
    for (const model of ["m", "anthropic/claude-haiku-4.5"]) {
      const before = server.requests.length;
      server.enqueue(fake.refusal("I can't help with grading that."));
      const { result, usage } = await withJudgeLedger(() =>
        askForVerdict(model, request(9), check),
      );
      expect(result.ok).toBe(false);
      expect(!result.ok && result.reason).toMatch(
        /the model refused to judge.*I can't help with grading that\./,
      );
      // One request: a refusal is not an unusable answer to repair.
      expect(server.requests.length - before).toBe(1);
      expect(usage.calls).toBe(1);
      expect(usage.inputTokens).toBeGreaterThan(0);
      expect(usage.outputTokens).toBeGreaterThan(0);
      expect(usage.costUsd).toBeGreaterThan(0);
    }
  });

  it("counts the tokens of a billed answer that held no judgment and was retried", async () => {
    configureJudges({ maxRetries: 1, retryBaseMs: 10 });
    const check = () => ({ ok: true as const, value: true });
    useClaudeProvider();
    for (const model of ["m", "claude/claude-haiku-4.5"]) {
      const before = server.requests.length;
      server.enqueue(fake.billedEmpty(500, 7), fake.json({ value: 1 }));
      const { result, usage } = await withJudgeLedger(() =>
        askForVerdict(model, request(10), check),
      );
      expect(result.ok, model).toBe(true);
      expect(server.requests.slice(before).map((r) => r.protocol)).toEqual(
        model === "m" ? ["openai", "openai"] : ["anthropic", "anthropic"],
      );
      expect(usage.retries, model).toBe(1);
      // The empty answer's 500 and 7 besides the verdict's own (at least 1 of each).
      expect(usage.inputTokens, model).toBeGreaterThan(500);
      expect(usage.outputTokens, model).toBeGreaterThan(7);
      expect(usage.unreportedCalls, model).toBeUndefined();
      // A retried try that said nothing of its cost is not a call whose usage went unreported.
      server.enqueue(fake.emptyUnmetered(), fake.json({ value: 1 }));
      const quiet = await withJudgeLedger(() => askForVerdict(model, request(13), check));
      expect(quiet.result.ok, model).toBe(true);
      expect(quiet.usage.unreportedCalls, model).toBeUndefined();
    }
  });

  it("reads an Anthropic error sent in a 200's body: its message, retried only when its kind is", async () => {
    configureJudges({ maxRetries: 2, retryBaseMs: 10 });
    const check = () => ({ ok: true as const, value: true });
    useClaudeProvider();
    const model = "claude/claude-haiku-4.5";
    let before = server.requests.length;
    server.enqueue(fake.errorInBody(400, "prompt is too long: 250000 tokens > 200000 maximum"));
    const refused = await askForVerdict(model, request(11), check);
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.reason).toContain(
      "answered HTTP 200 with an error instead of an answer: prompt is too long: 250000 tokens > 200000 maximum",
    );
    expect(server.requests.length - before).toBe(1);
    before = server.requests.length;
    server.enqueue(
      fake.errorInBody(529, "Overloaded", "overloaded_error"),
      fake.json({ value: 1 }),
    );
    const later = await askForVerdict(model, request(12), check);
    expect(later.ok).toBe(true);
    expect(server.requests.length - before).toBe(2);
  });

  it("lets registered providers win over the environment", async () => {
    const other = await startFakeLlmServer({ respond: () => fake.json({ from: "registered" }) });
    const unregister = registerJudgeProvider(
      "local",
      anthropicProvider({ apiKey: "k", baseURL: other.anthropicBaseURL }),
    );
    try {
      const result = await callJudge("local/claude-x-4.5", request());
      expect(result.ok && result.response.data).toEqual({ from: "registered" });
      // A registered Anthropic provider sends the Messages API's dashed model id too.
      expect(other.requests[0]?.body.model).toBe("claude-x-4-5");
      expect(server.requests).toHaveLength(0);
    } finally {
      unregister();
      await other.close();
    }
  });

  it("drops temperature for a model that only takes its default, counting the re-send as a retry", async () => {
    server.enqueue(
      {
        kind: "status",
        status: 400,
        message: "Unsupported value: 'temperature' does not support 0 with this model.",
      },
      fake.json({ ok: true }),
    );
    const provider = openAICompatibleProvider({ baseURL: server.openaiBaseURL });
    const { result, usage } = await withJudgeLedger(() =>
      callJudge({ provider, model: "m" }, request()),
    );
    expect(result.ok).toBe(true);
    expect(usage).toMatchObject({ calls: 1, retries: 1 });
    expect(server.requests.map((r) => "temperature" in r.body)).toEqual([true, false]);
  });

  it("sends again every call refused for temperature, also those refused before the first refusal came back", async () => {
    // A model that refuses any temperature but its default; its answers take 30 ms, so three
    // calls at once are all sent with temperature before the first refusal comes back.
    const refusing = await startFakeLlmServer({
      latencyMs: 30,
      respond: (request) =>
        "temperature" in request.body
          ? {
              kind: "status",
              status: 400,
              message: "Unsupported value: 'temperature' does not support 0 with this model.",
            }
          : fake.json({ ok: true }),
    });
    try {
      const provider = openAICompatibleProvider({ baseURL: refusing.openaiBaseURL });
      const results = await Promise.all(
        [1, 2, 3].map((n) => callJudge({ provider, model: "m" }, request(n))),
      );
      expect(results.map((r) => r.ok)).toEqual([true, true, true]);
      const sent = refusing.requests.map((r) => "temperature" in r.body);
      expect(sent.filter(Boolean)).toHaveLength(3);
      expect(sent.filter((t) => !t)).toHaveLength(3);
    } finally {
      await refusing.close();
    }
  });

  it("sends max_completion_tokens from then on when a server refuses max_tokens for it (openai/… through OPENAI_BASE_URL)", async () => {
    const refusal = {
      kind: "status",
      status: 400,
      errorType: "invalid_request_error",
      message:
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
    } as const;
    const newer = await startFakeLlmServer({
      respond: (request) => ("max_tokens" in request.body ? refusal : fake.json({ ok: true })),
    });
    try {
      delete process.env.NICEEVAL_JUDGE_BASE_URL;
      process.env.OPENAI_API_KEY = "k";
      process.env.OPENAI_BASE_URL = newer.openaiBaseURL;
      const { result, usage } = await withJudgeLedger(() => callJudge("openai/gpt-5", request(1)));
      expect(result.ok).toBe(true);
      expect(usage).toMatchObject({ calls: 1, retries: 1 });
      expect((await callJudge("openai/gpt-5", request(2))).ok).toBe(true);
      expect(
        newer.requests.map((r) => Object.keys(r.body).find((k) => k.startsWith("max_"))),
      ).toEqual(["max_tokens", "max_completion_tokens", "max_completion_tokens"]);
      expect(newer.requests[1]?.body.max_completion_tokens).toBe(50);

      // The field an author chose is kept: the refusal says how to choose the other one.
      const chosen = openAICompatibleProvider({
        baseURL: newer.openaiBaseURL,
        maxTokensField: "max_tokens",
      });
      const refused = await callJudge({ provider: chosen, model: "gpt-5" }, request(3));
      expect(refused.ok).toBe(false);
      expect(!refused.ok && refused.reason).toBe(
        `OpenAI-compatible endpoint ${newer.openaiBaseURL}/chat/completions answered HTTP 400: ${refusal.message} (niceeval sent "max_tokens"; give openAICompatibleProvider the maxTokensField this server takes and register it with registerJudgeProvider)`,
      );
    } finally {
      await newer.close();
    }
  });

  it("falls back to prose JSON when a server rejects the JSON-schema response format", async () => {
    server.enqueue(
      { kind: "status", status: 400, message: "response_format json_schema is not supported" },
      fake.text('Sure: {"ok": true}'),
      fake.text('{"ok": false}'),
    );
    const provider = openAICompatibleProvider({ baseURL: server.openaiBaseURL });
    const first = await callJudge({ provider, model: "m" }, request(1));
    expect(first.ok && first.response.text).toBe('Sure: {"ok": true}');
    await callJudge({ provider, model: "m" }, request(2));
    expect(server.requests.map((r) => "response_format" in r.body)).toEqual([true, false, false]);
  });
});
