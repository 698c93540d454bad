// openAiEmbed goes the way judge calls go: retries (with Retry-After), a timeout per try, usage in
// the judge ledger, and a final failure that is an unavailable judgment naming the scorer, the
// model and the endpoint. Against a real embeddings server on 127.0.0.1.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/eval/record.js";
import { bindScorer, defineSuite } from "../../src/eval/suite.js";
import { configureJudges } from "../../src/judge/config.js";
import { withJudgeLedger } from "../../src/judge/ledger.js";
import { JudgeUnavailableError } from "../../src/judge/unavailable.js";
import { runEvals } from "../../src/runner/run.js";
import { openAiEmbed } from "../../src/scorers/style/openai-embed.js";
import {
  makeStyleEmbeddingDriver,
  styleEmbeddingTool,
} from "../../src/scorers/style/style-embedding.js";
import { isolateJudges } from "./judge-env.js";

/** What the server does with one request: answer, a status (with headers), drop or hang. */
type Step =
  | { kind: "ok" }
  | { kind: "status"; status: number; message: string; headers?: Record<string, string> }
  | { kind: "drop" }
  | { kind: "hang" }
  /** A 200 whose body is an error (`{ error: { code, message } }`), as OpenRouter sends. */
  | { kind: "error-in-body"; code: number; message: string };

interface EmbeddingsServer {
  baseUrl: string;
  requests: { authorization: string | undefined; input: string[] }[];
  script(...steps: Step[]): void;
  close(): Promise<void>;
}

async function startEmbeddingsServer(): Promise<EmbeddingsServer> {
  const steps: Step[] = [];
  const requests: EmbeddingsServer["requests"] = [];
  const server: Server = createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw) as { input: string[] };
    requests.push({ authorization: req.headers.authorization, input: body.input });
    const step = steps.shift() ?? { kind: "ok" };
    if (step.kind === "hang") return;
    if (step.kind === "drop") return void req.socket.destroy();
    if (step.kind === "error-in-body") {
      res.writeHead(200, { "content-type": "application/json" });
      return void res.end(JSON.stringify({ error: { code: step.code, message: step.message } }));
    }
    if (step.kind === "status") {
      res.writeHead(step.status, { "content-type": "application/json", ...step.headers });
      return void res.end(JSON.stringify({ error: { message: step.message } }));
    }
    const data = body.input.map((text, index) => ({
      object: "embedding",
      index,
      embedding: [text.length, 1],
    }));
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ object: "list", data, usage: { prompt_tokens: 7, total_tokens: 7 } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script: (...more) => steps.push(...more),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let server: EmbeddingsServer;
let env: Awaited<ReturnType<typeof isolateJudges>>;
beforeEach(async () => {
  env = await isolateJudges();
  server = await startEmbeddingsServer();
});
afterEach(async () => {
  await server.close();
  await env.cleanup();
});

describe("openAiEmbed through the judge call layer", () => {
  it("waits out a 429's Retry-After and tries again, counting the call, the retry and the tokens", async () => {
    server.script({
      kind: "status",
      status: 429,
      message: "rate limited",
      headers: { "retry-after": "1" },
    });
    const embed = openAiEmbed({ baseUrl: server.baseUrl, apiKey: "k", model: "toy" });
    const started = Date.now();
    const { result, usage } = await withJudgeLedger(() => embed(["ab", "abc"]));
    expect(result).toEqual([
      [2, 1],
      [3, 1],
    ]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(server.requests).toHaveLength(2);
    expect(usage).toMatchObject({ calls: 1, retries: 1, inputTokens: 7, outputTokens: 0 });
  });

  it("names an error sent in a 200's body, and tries again when its code is worth it", async () => {
    server.script(
      { kind: "error-in-body", code: 502, message: "upstream embedding provider failed" },
      { kind: "error-in-body", code: 400, message: "input too long for the model" },
    );
    const embed = openAiEmbed({ baseUrl: server.baseUrl, model: "toy" });
    const error = (await embed(["a"]).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(JudgeUnavailableError);
    expect(error.message).toContain(
      "answered HTTP 200 with an error instead of an answer: input too long for the model (code 400)",
    );
    expect(server.requests).toHaveLength(2);
  });

  it("tries a reset connection again", async () => {
    server.script({ kind: "drop" });
    const embed = openAiEmbed({ baseUrl: server.baseUrl, model: "toy" });
    expect(await embed(["a"])).toEqual([[1, 1]]);
    expect(server.requests).toHaveLength(2);
  });

  it("gives up a hung try at the judges' timeoutMs and is unavailable once the tries are spent", async () => {
    configureJudges({ timeoutMs: 100, maxRetries: 1 });
    server.script({ kind: "hang" }, { kind: "hang" });
    const embed = openAiEmbed({ baseUrl: server.baseUrl, model: "toy" });
    const error = await embed(["a"]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JudgeUnavailableError);
    expect((error as Error).message).toBe(
      `embedding model "toy" unavailable: OpenAI-compatible embeddings endpoint ${server.baseUrl}/embeddings gave no answer within 100 ms (raise timeoutMs with configureJudges) (gave up after 2 tries)`,
    );
  });

  it("prices the tokens under the model's name in the judges' price table", async () => {
    configureJudges({ prices: { toy: { inputPerMTok: 1_000_000, outputPerMTok: 0 } } });
    const embed = openAiEmbed({ baseUrl: server.baseUrl, model: "toy" });
    const { usage } = await withJudgeLedger(() => embed(["a"]));
    expect(usage).toMatchObject({ calls: 1, inputTokens: 7, costUsd: 7 });
  });

  it("names the variable the key came from after a 401, never the key", async () => {
    server.script({ kind: "status", status: 401, message: "invalid key" });
    const embed = openAiEmbed({
      baseUrl: server.baseUrl,
      apiKey: "sk-secret-123",
      apiKeyFrom: "EMBED_KEY",
      model: "toy",
    });
    const error = (await embed(["a"]).catch((e: unknown) => e)) as Error;
    expect(error.message).toContain(
      "answered HTTP 401: invalid key (check the API key in EMBED_KEY)",
    );
    expect(error.message).not.toContain("sk-secret-123");
    expect(server.requests).toHaveLength(1);
  });

  it("makes the style-embedding judgment unavailable, naming the scorer, the model and the endpoint, with its usage", async () => {
    configureJudges({ maxRetries: 2 });
    const busy = { kind: "status", status: 503, message: "overloaded" } as const;
    server.script(busy, busy, busy);
    const embed = openAiEmbed({ baseUrl: server.baseUrl, model: "toy" });
    const suite = defineSuite<number, string>({
      id: "emb",
      cases: [{ id: "c0", input: 0 }],
      target: () => "abc",
      scorers: [
        bindScorer<string, { candidate: string; references: string[] }>({
          id: "style-emb",
          tool: styleEmbeddingTool,
          driver: makeStyleEmbeddingDriver(embed),
          mapInput: ({ output }) => ({ candidate: output, references: ["abc", "xyz"] }),
        }),
      ],
    });
    const records: AttemptRecord[] = [];
    await runEvals([{ eval: suite }], { onRecord: (r) => records.push(r) });
    const judgment = records[0]?.judgments[0];
    expect(judgment?.state).toBe("unavailable");
    expect(judgment?.reason).toBe(
      `scorer "style-emb": embedding model "toy" unavailable: OpenAI-compatible embeddings endpoint ${server.baseUrl}/embeddings answered HTTP 503: overloaded (gave up after 3 tries)`,
    );
    expect(judgment?.judge).toMatchObject({ calls: 1, retries: 2 });
    expect(server.requests).toHaveLength(3);
  });
});
