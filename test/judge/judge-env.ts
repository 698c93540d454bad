import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { closeAnswerStores } from "../../src/judge/cache.js";
import type { JudgeChatRequest } from "../../src/judge/chat.js";
import { configureJudges, resetJudgeConfig } from "../../src/judge/config.js";
import { JUDGE_VARIABLES } from "../../src/judge/environment.js";
import { type FakeLlmServer, startFakeLlmServer } from "../support/fake-llm-server.js";

/** Every variable judges read: none of them leaks from the shell into a test. */
const VARIABLES = JUDGE_VARIABLES;

/**
 * Give each test a clean judge environment: no provider variables, a fresh temp cache folder,
 * fast retries. Returns a cleanup that restores the variables and removes the folder.
 */
export async function isolateJudges(): Promise<{ cacheDir: string; cleanup: () => Promise<void> }> {
  const saved = Object.fromEntries(VARIABLES.map((name) => [name, process.env[name]]));
  for (const name of VARIABLES) delete process.env[name];
  const cacheDir = await mkdtemp(join(tmpdir(), "niceeval-judge-"));
  resetJudgeConfig();
  configureJudges({ cacheDir, retryBaseMs: 5, retryMaxMs: 50, timeoutMs: 2000, maxRetries: 3 });
  return {
    cacheDir,
    cleanup: async () => {
      for (const name of VARIABLES) {
        const value = saved[name];
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      resetJudgeConfig();
      await closeAnswerStores();
      await rm(cacheDir, { recursive: true, force: true });
    },
  };
}

/**
 * Each test of the file against a fresh fake LLM server on loopback, its judges isolated
 * ({@link isolateJudges}): judges call its OpenAI-compatible endpoint (`NICEEVAL_JUDGE_BASE_URL`),
 * or with "anthropic" its Messages endpoint (`ANTHROPIC_BASE_URL`, with a key); with "none",
 * no variable names it (the test gives judges its URLs itself). Returns the current test's server.
 */
export function fakeJudgeServer(
  protocol: "openai" | "anthropic" | "none" = "openai",
): () => FakeLlmServer {
  let server: FakeLlmServer | undefined;
  let env: Awaited<ReturnType<typeof isolateJudges>> | undefined;
  beforeEach(async () => {
    env = await isolateJudges();
    server = await startFakeLlmServer();
    if (protocol === "openai") process.env.NICEEVAL_JUDGE_BASE_URL = server.openaiBaseURL;
    else if (protocol === "anthropic") {
      process.env.ANTHROPIC_API_KEY = "k";
      process.env.ANTHROPIC_BASE_URL = server.anthropicBaseURL;
    }
  });
  afterEach(async () => {
    await server?.close();
    await env?.cleanup();
  });
  return () => server!;
}

/** A temperature-0 request of one question, as niceeval's own judges send (so it is cached). */
export const judgeRequest: JudgeChatRequest = {
  system: "judge",
  messages: [{ role: "user", content: "question" }],
  answer: { name: "verdict", description: "d", schema: { type: "object" } },
  temperature: 0,
  maxOutputTokens: 50,
};
