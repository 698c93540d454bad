// A judge base URL that carries a user and password (a gateway behind basic auth): fetch refuses
// such a URL, so niceeval sends them as basic auth, as curl does, and never shows the password in
// a reason, a report or the cache.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { closeAnswerStores } from "../../src/judge/cache.js";
import { judgeFromModel } from "../../src/judge/judge-from-model.js";
import { anthropicProvider } from "../../src/judge/providers/anthropic.js";
import { registerJudgeProvider } from "../../src/judge/resolve.js";
import { type FakeLlmServer, fake, startFakeLlmServer } from "../support/fake-llm-server.js";
import { isolateJudges } from "./judge-env.js";

let server: FakeLlmServer;
let env: Awaited<ReturnType<typeof isolateJudges>>;
beforeEach(async () => {
  env = await isolateJudges();
  server = await startFakeLlmServer();
});
afterEach(async () => {
  await server.close();
  await env.cleanup();
});

const withUser = (url: string) => url.replace("http://", "http://bob:s3cret%40pw@");
const basic = `Basic ${Buffer.from("bob:s3cret@pw").toString("base64")}`;
const ask = (model: string) => judgeFromModel(model)({ output: "thanks", criteria: "Polite?" });

describe("a judge base URL with a user and password", () => {
  it("sends them as basic auth, and keeps the password out of the cache", async () => {
    process.env.NICEEVAL_JUDGE_BASE_URL = withUser(server.openaiBaseURL);
    server.enqueue(fake.json({ value: 0.9, rationale: "polite" }));
    await expect(ask("m")).resolves.toEqual({ value: 0.9, rationale: "polite" });
    expect(server.requests[0]?.headers.authorization).toBe(basic);
    expect(server.requests[0]?.path).toBe("/v1/chat/completions");
    await closeAnswerStores();
    const files = await readdir(env.cacheDir);
    const cached = await Promise.all(
      files.map((file) => readFile(join(env.cacheDir, file), "utf8")),
    );
    expect(cached.join("")).toContain("bob:***@");
    expect(cached.join("")).not.toContain("s3cret");
  });

  it("sends them to an Anthropic endpoint too, beside its x-api-key", async () => {
    registerJudgeProvider(
      "claude",
      anthropicProvider({ apiKey: "k", baseURL: withUser(server.anthropicBaseURL) }),
    );
    server.enqueue(fake.json({ value: 0.4, rationale: "curt" }));
    await expect(ask("claude/claude-haiku-4.5")).resolves.toEqual({
      value: 0.4,
      rationale: "curt",
    });
    expect(server.requests[0]?.headers.authorization).toBe(basic);
    expect(server.requests[0]?.headers["x-api-key"]).toBe("k");
  });

  it("never shows the password in the reason of a judgment the endpoint refused", async () => {
    process.env.NICEEVAL_JUDGE_BASE_URL = withUser(server.openaiBaseURL);
    server.enqueue({ kind: "status", status: 401, message: "bad credentials" });
    const error = (await ask("m").catch((e: unknown) => e)) as Error;
    expect(error.message).toContain("answered HTTP 401: bad credentials");
    expect(error.message).toContain("http://bob:***@127.0.0.1");
    expect(error.message).not.toContain("s3cret");
  });

  it("masks a user part that stands alone, a token, and sends it as the basic-auth user", async () => {
    process.env.NICEEVAL_JUDGE_BASE_URL = server.openaiBaseURL.replace("http://", "http://tok3n@");
    server.enqueue({ kind: "status", status: 403, message: "forbidden" });
    const error = (await ask("m").catch((e: unknown) => e)) as Error;
    expect(error.message).toContain("http://***@127.0.0.1");
    expect(error.message).not.toContain("tok3n");
    expect(server.requests[0]?.headers.authorization).toBe(
      `Basic ${Buffer.from("tok3n:").toString("base64")}`,
    );
  });
});
