// A base URL with a query string (Azure OpenAI's `…/deployments/<name>?api-version=…`): the path
// of the call goes before the query, not after it.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { judgeFromModel } from "../../src/judge/judge-from-model.js";
import { openAICompatibleProvider } from "../../src/judge/providers/openai-compatible.js";
import { registerJudgeProvider } from "../../src/judge/resolve.js";
import { openAiEmbed } from "../../src/scorers/style/openai-embed.js";
import { isolateJudges } from "./judge-env.js";

let server: Server;
let base = "";
const paths: string[] = [];
let env: Awaited<ReturnType<typeof isolateJudges>>;
beforeEach(async () => {
  env = await isolateJudges();
  paths.length = 0;
  server = createServer(async (req, res) => {
    for await (const _ of req);
    paths.push(req.url ?? "");
    if (req.url?.includes("key=")) {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "API key not valid" } }));
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    if (req.url?.includes("/embeddings")) {
      res.end(
        JSON.stringify({ data: [{ index: 0, embedding: [1, 0] }], usage: { prompt_tokens: 1 } }),
      );
      return;
    }
    const content = JSON.stringify({ value: 0.6, rationale: "fair" });
    res.end(
      JSON.stringify({
        choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
        usage: { prompt_tokens: 5, completion_tokens: 3 },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/openai/deployments/judge`;
});
afterEach(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await env.cleanup();
});

describe("a base URL with a query string", () => {
  it("sends the chat completion and the embeddings to the path before the query", async () => {
    registerJudgeProvider(
      "azure",
      openAICompatibleProvider({
        baseURL: `${base}?api-version=2024-10-21`,
        headers: { "api-key": "k" },
      }),
    );
    await expect(
      judgeFromModel("azure/gpt-4.1-mini")({ output: "ok", criteria: "Fair?" }),
    ).resolves.toEqual({ value: 0.6, rationale: "fair" });
    await openAiEmbed({ baseUrl: `${base}/?api-version=2024-10-21`, model: "e" })(["a"]);
    expect(paths).toEqual([
      "/openai/deployments/judge/chat/completions?api-version=2024-10-21",
      "/openai/deployments/judge/embeddings?api-version=2024-10-21",
    ]);
  });

  it("sends a key given in the query string, and never shows it in a reason", async () => {
    registerJudgeProvider(
      "keyed",
      openAICompatibleProvider({ baseURL: `${base}?api-version=1&key=AIzaS3CRET` }),
    );
    const error = (await judgeFromModel("keyed/m")({ output: "ok", criteria: "Fair?" }).catch(
      (e: unknown) => e,
    )) as Error;
    expect(paths).toEqual([
      "/openai/deployments/judge/chat/completions?api-version=1&key=AIzaS3CRET",
    ]);
    expect(error.message).toContain("answered HTTP 401: API key not valid");
    expect(error.message).toContain("?api-version=1&key=***");
    expect(error.message).not.toContain("S3CRET");
  });
});
