import { afterEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, fake, startFakeLlmServer } from "./fake-llm-server.js";

let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

describe("fake LLM server", () => {
  it("speaks OpenAI chat completions, with usage and Bearer auth", async () => {
    server = await startFakeLlmServer({ apiKey: "k", answers: [fake.json({ a: 1 })] });
    const denied = await post(`${server.openaiBaseURL}/chat/completions`, {
      model: "m",
      messages: [],
    });
    expect(denied.status).toBe(401);
    expect(((await denied.json()) as { error: { message: string } }).error.message).toMatch(
      /API key/,
    );
    const ok = await post(
      `${server.openaiBaseURL}/chat/completions`,
      { model: "m", messages: [] },
      { authorization: "Bearer k" },
    );
    const body = (await ok.json()) as {
      choices: { message: { content: string } }[];
      usage: { prompt_tokens: number; completion_tokens: number };
    };
    expect(body.choices[0]?.message.content).toBe('{"a":1}');
    expect(body.usage.prompt_tokens).toBeGreaterThan(0);
    expect(server.requests).toHaveLength(1);
  });

  it("speaks Anthropic Messages: forced tool calls become tool_use blocks; errors use its error shape", async () => {
    server = await startFakeLlmServer({ answers: [fake.json({ v: true }), fake.serverError()] });
    const headers = { "x-api-key": "k", "anthropic-version": "2023-06-01" };
    const body = {
      model: "c",
      max_tokens: 5,
      messages: [],
      tool_choice: { type: "tool", name: "verdict" },
    };
    const answer = (await (
      await post(`${server.anthropicBaseURL}/v1/messages`, body, headers)
    ).json()) as {
      content: unknown[];
      stop_reason: string;
      usage: { input_tokens: number };
    };
    expect(answer.content).toEqual([
      { type: "tool_use", id: "toolu_fake", name: "verdict", input: { v: true } },
    ]);
    expect(answer.stop_reason).toBe("tool_use");
    const failed = await post(`${server.anthropicBaseURL}/v1/messages`, body, headers);
    expect(failed.status).toBe(500);
    expect(await failed.json()).toMatchObject({ type: "error", error: { type: "api_error" } });
    const unversioned = await post(`${server.anthropicBaseURL}/v1/messages`, body, {
      "x-api-key": "k",
    });
    expect(unversioned.status).toBe(400);
  });

  it("rate limits beyond the allowance with Retry-After", async () => {
    server = await startFakeLlmServer({
      rateLimit: { perWindow: 2, windowMs: 60_000 },
      respond: () => fake.json({}),
    });
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 3; i++) {
      const response = await post(`${server.openaiBaseURL}/chat/completions`, {
        model: "m",
        messages: [],
      });
      statuses.push(response.status);
      if (response.status === 429) retryAfter = response.headers.get("retry-after");
    }
    expect(statuses).toEqual([200, 200, 429]);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    expect(server.rejected).toBe(1);
  });

  it("cuts a body short and hangs until closed", async () => {
    server = await startFakeLlmServer({ answers: [fake.truncatedBody(), fake.hang()] });
    const cut = await post(`${server.openaiBaseURL}/chat/completions`, {
      model: "m",
      messages: [],
    });
    await expect(cut.json()).rejects.toThrow();
    const hanging = post(`${server.openaiBaseURL}/chat/completions`, { model: "m", messages: [] });
    const outcome = await Promise.race([
      hanging.then(() => "answered"),
      new Promise((r) => setTimeout(() => r("waiting"), 100)),
    ]);
    expect(outcome).toBe("waiting");
    await server.close();
    server = undefined;
    await expect(hanging).rejects.toThrow();
  });
});
