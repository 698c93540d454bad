import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configureJudges, resetJudgeConfig } from "../../judge/config.js";
import { JudgeUnavailableError } from "../../judge/unavailable.js";
import { runTool } from "../../tool/index.js";
import { makeStyleEmbeddingDriver, openAiEmbed, styleEmbeddingTool } from "./index.js";

interface Seen {
  url: string | undefined;
  method: string | undefined;
  authorization: string | undefined;
  contentType: string | undefined;
  body: { model?: string; input?: string[]; dimensions?: number };
}

/** A loopback server speaking the OpenAI embeddings protocol, with a few failure modes by model name. */
function embeddingsServer(seen: Seen[]) {
  return createServer(async (request: IncomingMessage, response: ServerResponse) => {
    let raw = "";
    for await (const chunk of request) raw += chunk;
    const body = JSON.parse(raw) as Seen["body"];
    seen.push({
      url: request.url,
      method: request.method,
      authorization: request.headers.authorization,
      contentType: request.headers["content-type"],
      body,
    });
    const send = (status: number, payload: unknown) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(typeof payload === "string" ? payload : JSON.stringify(payload));
    };
    if (request.url !== "/v1/embeddings") return send(404, { error: { message: "unknown route" } });
    if (body.model === "missing-model") {
      return send(404, {
        error: {
          message: "The model `missing-model` does not exist",
          type: "invalid_request_error",
        },
      });
    }
    if (body.model === "broken") return send(200, "<html>oops</html>");
    if (body.model === "short") return send(200, { object: "list", data: [] });
    const inputs = body.input ?? [];
    // Answer in reverse order: the client must put vectors back by index.
    const data = inputs
      .map((text, index) => ({ object: "embedding", index, embedding: vectorOf(text) }))
      .reverse();
    return send(200, {
      object: "list",
      data,
      model: body.model,
      usage: { prompt_tokens: 3, total_tokens: 3 },
    });
  });
}

/** A toy embedding: counts of a few letters, so similar texts point the same way. */
function vectorOf(text: string): number[] {
  return ["a", "e", "i", "o"].map((letter) => [...text].filter((c) => c === letter).length);
}

describe("openAiEmbed against a loopback OpenAI-compatible server", () => {
  const seen: Seen[] = [];
  let server: Server;
  let baseUrl: string;

  beforeAll(async () => {
    // Retries as judge calls make them, fast: a body that is not JSON is tried again.
    configureJudges({ retryBaseMs: 5, retryMaxMs: 20, maxRetries: 2 });
    server = embeddingsServer(seen);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });

  afterAll(async () => {
    resetJudgeConfig();
    await new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve())));
  });

  it("posts { model, input } to {baseUrl}/embeddings with a bearer key and restores input order", async () => {
    const embed = openAiEmbed({
      baseUrl: `${baseUrl}/`,
      apiKey: "sk-test",
      model: "toy",
      dimensions: 4,
    });
    const vectors = await embed(["aaa", "eee", "io"]);
    expect(vectors).toEqual([
      [3, 0, 0, 0],
      [0, 3, 0, 0],
      [0, 0, 1, 1],
    ]);
    expect(seen.at(-1)).toEqual({
      url: "/v1/embeddings",
      method: "POST",
      authorization: "Bearer sk-test",
      contentType: "application/json",
      body: { model: "toy", input: ["aaa", "eee", "io"], dimensions: 4 },
    });
  });

  it("sends no authorization header without an apiKey and skips the request for no texts", async () => {
    const count = seen.length;
    const embed = openAiEmbed({ baseUrl, model: "toy" });
    expect(await embed([])).toEqual([]);
    expect(seen.length).toBe(count);
    await embed(["a"]);
    expect(seen.at(-1)?.authorization).toBeUndefined();
  });

  it("is unavailable with the server's error message and status, naming the model and the endpoint", async () => {
    const error = await openAiEmbed({ baseUrl, model: "missing-model" })(["a"]).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(JudgeUnavailableError);
    expect(error).toMatchObject({
      code: "JUDGE_UNAVAILABLE",
      kind: "failed",
      model: "missing-model",
    });
    expect((error as Error).message).toContain(
      `embedding model "missing-model" unavailable: OpenAI-compatible embeddings endpoint ${baseUrl}/embeddings answered HTTP 404: The model \`missing-model\` does not exist`,
    );
  });

  it("is unavailable for a body that is not JSON (after its retries) or lacks one vector per text", async () => {
    await expect(openAiEmbed({ baseUrl, model: "broken" })(["a"])).rejects.toThrow(
      /not JSON.*gave up after 3 tries/,
    );
    await expect(openAiEmbed({ baseUrl, model: "short" })(["a"])).rejects.toThrow(
      /has 0 embeddings for 1 texts/,
    );
  });

  it("is unavailable when the connection is refused, saying to check the base URL", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await openAiEmbed({ baseUrl: `http://127.0.0.1:${port}/v1`, model: "toy" })([
      "a",
    ]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JudgeUnavailableError);
    expect((error as Error).message).toMatch(/could not be reached .*check the base URL/);
  });

  it("drives eval.style-embedding end to end", async () => {
    const driver = makeStyleEmbeddingDriver(openAiEmbed({ baseUrl, model: "toy" }));
    const close = await runTool({
      tool: styleEmbeddingTool,
      candidates: [driver],
      input: { candidate: "banana", references: ["papaya", "cassava"] },
    });
    expect(close).toMatchObject({ value: 1, passed: true });
    const far = await runTool({
      tool: styleEmbeddingTool,
      candidates: [driver],
      input: { candidate: "ooo", references: ["papaya", "cassava"] },
    });
    expect(far).toMatchObject({ value: 0, passed: false });
  });

  it("refuses missing baseUrl or model at build time", () => {
    expect(() => openAiEmbed({ baseUrl: "", model: "m" })).toThrow(/baseUrl/);
    expect(() => openAiEmbed({ baseUrl, model: "" })).toThrow(/model/);
  });
});
