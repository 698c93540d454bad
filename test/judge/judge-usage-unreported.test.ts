// Judge answers that carry no usage block: their tokens are unknown, never 0. The calls are
// counted as "usage not reported" in the console, the JSON and the Markdown report, and the
// token counts and cost shown are lower bounds (or unknown), over every provider path.
import { closeSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createGateway } from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { judgeFromAiSdk } from "../../src/ai-sdk/index.js";
import { bindScorer, defineSuite } from "../../src/eval/suite.js";
import { configureJudges } from "../../src/judge/config.js";
import { judgeFromModel } from "../../src/judge/judge-from-model.js";
import { consoleReporter } from "../../src/report/console-reporter.js";
import { jsonReporter } from "../../src/report/json-reporter.js";
import { markdownReporter } from "../../src/report/markdown-reporter.js";
import { runEvals } from "../../src/runner/run.js";
import { createScorer } from "../../src/scorers/create-scorer.js";
import { expectations } from "../../src/scorers/judged/expectations.js";
import { llmJudge } from "../../src/scorers/judged/llm-judge.js";
import {
  type FakeLlmServer,
  fake,
  type RecordedRequest,
  startFakeLlmServer,
} from "../support/fake-llm-server.js";
import { isolateJudges } from "./judge-env.js";

/** Questions whose answers report no usage: the "login" case's, on every protocol. */
const unmetered = (request: RecordedRequest) => JSON.stringify(request.body).includes("login");

let server: FakeLlmServer;
let env: Awaited<ReturnType<typeof isolateJudges>>;
beforeEach(async () => {
  env = await isolateJudges();
  server = await startFakeLlmServer({
    respond: (request) => {
      const answer = unmetered(request) ? fake.unmetered : fake.json;
      if (request.protocol !== "anthropic") return answer({ value: 0.8, rationale: "fine" });
      const count = Number(
        /## Requirements \((\d+)\)/.exec(JSON.stringify(request.body.messages))?.[1] ?? 0,
      );
      return answer({
        checks: Array.from({ length: count }, (_, i) => ({ id: i + 1, met: true, why: "x" })),
      });
    },
  });
  process.env.ANTHROPIC_API_KEY = "k";
  process.env.ANTHROPIC_BASE_URL = server.anthropicBaseURL;
  process.env.OPENAI_API_KEY = "k";
  process.env.OPENAI_BASE_URL = server.openaiBaseURL;
});
afterEach(async () => {
  await server.close();
  await env.cleanup();
});

interface Answer {
  text: string;
}

/** Three judged scorers, one per provider path: Anthropic, OpenAI-compatible, the AI SDK. */
const suiteOf = (caseIds: string[]) =>
  defineSuite<string, Answer>({
    id: "judged",
    cases: caseIds.map((id) => ({ id, input: `Is the ${id} site up?` })),
    target: (question) => ({ text: `No: ${question}` }),
    scorers: [
      createScorer<Answer>({
        name: "expectations",
        score: async ({ output }) => ({
          score: (
            await expectations(
              "q",
              { text: output.text, calls: [] },
              { should: ["says which site is down"] },
              "anthropic/claude-haiku-4.5",
            )
          ).score,
        }),
      }),
      ...[
        judgeFromModel("openai/gpt-5"),
        judgeFromAiSdk(createGateway({ baseURL: server.gatewayBaseURL, apiKey: "k" })("gpt-judge")),
      ].map((judge, i) =>
        bindScorer(
          llmJudge<Answer>({
            id: `helpful-${i}`,
            judge,
            criteria: "Is the answer helpful?",
            mapOutput: ({ output }) => output.text,
          }),
        ),
      ),
    ],
  });

/** Run the suite with every model priced; the console, JSON and Markdown reports as written. */
async function run(caseIds: string[]) {
  const price = { inputPerMTok: 1, outputPerMTok: 5 };
  configureJudges({
    cache: false,
    prices: { "anthropic/claude-haiku-4.5": price, "openai/gpt-5": price, "gpt-judge": price },
  });
  const files = {
    console: join(env.cacheDir, "console.txt"),
    json: join(env.cacheDir, "report.json"),
    markdown: join(env.cacheDir, "summary.md"),
  };
  const fd = openSync(files.console, "w");
  const summary = await runEvals([{ eval: suiteOf(caseIds) }], {
    reporters: [
      consoleReporter({ fd }),
      jsonReporter(files.json),
      markdownReporter(files.markdown),
    ],
  });
  closeSync(fd);
  return {
    summary,
    console: readFileSync(files.console, "utf8"),
    json: JSON.parse(readFileSync(files.json, "utf8")),
    markdown: readFileSync(files.markdown, "utf8"),
  };
}

describe("judge answers without usage", () => {
  it("are counted as usage not reported, with tokens and cost unknown, never 0", async () => {
    const { summary, console, json, markdown } = await run(["login"]);
    expect(server.requests.map((r) => r.protocol).sort()).toEqual([
      "ai-gateway",
      "anthropic",
      "openai",
    ]);
    expect(summary.judge).toMatchObject({ calls: 3, unreportedCalls: 3 });
    const line =
      "judge: 3 calls, 0 cached, tokens unknown (usage not reported by 3 calls), cost unknown";
    expect(console).toContain(`  ${line}\n`);
    expect(console).toContain(`${line} · `);
    expect(markdown).toContain(line);
    expect(json.summary.judge).toMatchObject({ calls: 3, unreportedCalls: 3 });
    // No cost is claimed for tokens nobody reported, not even $0.
    expect(json.summary.judge.costUsd).toBeUndefined();
    expect(json.summary.evals[0].judge.unreportedCalls).toBe(3);
    expect(json.records[0].usage.judge.unreportedCalls).toBe(3);
  });

  it("make the tokens and cost of a run where others reported theirs lower bounds", async () => {
    const { summary, console, json, markdown } = await run(["checkout", "login"]);
    const { judge } = summary;
    expect(judge).toMatchObject({ calls: 6, unreportedCalls: 3 });
    expect(judge.inputTokens).toBeGreaterThan(0);
    expect(judge.costUsd).toBeGreaterThan(0);
    const cost = `≥ $${Math.round(judge.costUsd! * 1e4) / 1e4}`;
    const line = `judge: 6 calls, 0 cached, ≥ ${judge.inputTokens} in / ≥ ${judge.outputTokens} out tokens (usage not reported by 3 calls), ${cost}`;
    expect(console).toContain(`  ${line}\n`);
    expect(markdown).toContain(line);
    expect(json.summary.judge.unreportedCalls).toBe(3);
    const byCase = Object.fromEntries(
      json.records.map((r: { caseId: string; usage: { judge: unknown } }) => [
        r.caseId,
        r.usage.judge,
      ]),
    );
    expect(byCase.checkout.unreportedCalls).toBeUndefined();
    expect(byCase.login).toMatchObject({ unreportedCalls: 3, inputTokens: 0, outputTokens: 0 });
  });
});
