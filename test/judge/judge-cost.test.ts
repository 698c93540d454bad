// What a run's judge calls cost when the price table lists some of their models and not others:
// the cost of the priced calls is a lower bound, said as one, with the calls it leaves out.
import { closeSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bindScorer, defineSuite } from "../../src/eval/suite.js";
import { configureJudges } from "../../src/judge/config.js";
import { judgeFromModel } from "../../src/judge/judge-from-model.js";
import { consoleReporter } from "../../src/report/console-reporter.js";
import { jsonReporter } from "../../src/report/json-reporter.js";
import { runEvals } from "../../src/runner/run.js";
import { createScorer } from "../../src/scorers/create-scorer.js";
import { expectations } from "../../src/scorers/judged/expectations.js";
import { llmJudge } from "../../src/scorers/judged/llm-judge.js";
import { type FakeLlmServer, fake, startFakeLlmServer } from "../support/fake-llm-server.js";
import { isolateJudges } from "./judge-env.js";

let server: FakeLlmServer;
let env: Awaited<ReturnType<typeof isolateJudges>>;
beforeEach(async () => {
  env = await isolateJudges();
  server = await startFakeLlmServer({
    respond: ({ protocol, body }) => {
      if (protocol === "openai") return fake.json({ value: 0.8, rationale: "fine" });
      const asked = JSON.stringify(body.messages);
      const count = Number(/## Requirements \((\d+)\)/.exec(asked)?.[1] ?? 0);
      const checks = Array.from({ length: count }, (_, i) => ({ id: i + 1, met: true, why: "x" }));
      return fake.json({ checks });
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

const suite = defineSuite<string, Answer>({
  id: "judged",
  cases: [
    { id: "c1", input: "Is the checkout site up?" },
    { id: "c2", input: "Is the login site up?" },
  ],
  target: (question) => ({ text: `No: ${question}` }),
  scorers: [
    createScorer<Answer>({
      name: "expectations",
      score: async ({ output }) => ({
        score: (
          await expectations(
            "q",
            { text: output.text, calls: [] },
            { should: ["says which site is down"], shouldNot: ["invents a cause"] },
            "anthropic/claude-haiku-4.5",
          )
        ).score,
      }),
    }),
    bindScorer(
      llmJudge<Answer>({
        id: "helpful",
        judge: judgeFromModel("openai/gpt-5"),
        criteria: "Is the answer helpful?",
        mapOutput: ({ output }) => output.text,
      }),
    ),
  ],
});

describe("judge cost with a price table that lists some models", () => {
  it("is a lower bound in the console and the JSON summary, naming the calls and models it leaves out", async () => {
    configureJudges({
      cache: false,
      prices: { "anthropic/claude-haiku-4.5": { inputPerMTok: 1, outputPerMTok: 5 } },
    });
    const consoleFile = join(env.cacheDir, "console.txt");
    const jsonFile = join(env.cacheDir, "report.json");
    const fd = openSync(consoleFile, "w");
    const summary = await runEvals([{ eval: suite }], {
      reporters: [consoleReporter({ fd }), jsonReporter(jsonFile)],
    });
    closeSync(fd);

    const openai = server.requests.filter((r) => r.protocol === "openai");
    expect(openai).toHaveLength(2);
    const { judge } = summary;
    expect(judge.calls).toBe(4);
    expect(judge.costUsd).toBeGreaterThan(0);
    expect(judge.unpriced).toEqual({
      calls: 2,
      inputTokens: expect.any(Number),
      outputTokens: expect.any(Number),
      models: ["openai/gpt-5"],
    });
    expect(judge.unpriced!.inputTokens + judge.unpriced!.outputTokens).toBeGreaterThan(0);
    // What the priced calls cost, and no more: the unpriced tokens are not in it.
    const pricedIn = judge.inputTokens - judge.unpriced!.inputTokens;
    const pricedOut = judge.outputTokens - judge.unpriced!.outputTokens;
    expect(judge.costUsd).toBeCloseTo((pricedIn * 1 + pricedOut * 5) / 1e6, 12);

    const cost = `≥ $${Math.round(judge.costUsd! * 1e4) / 1e4}, 2 calls unpriced (add openai/gpt-5 to configureJudges({ prices }))`;
    const text = readFileSync(consoleFile, "utf8");
    expect(text).toContain(
      `  judge: 4 calls, 0 cached, ${judge.inputTokens} in / ${judge.outputTokens} out tokens, ${cost}`,
    );
    // The eval's own line says it the same way.
    expect(text).toContain(
      `judge: 4 calls, 0 cached, ${judge.inputTokens} in / ${judge.outputTokens} out tokens, ${cost} · `,
    );
    const report = JSON.parse(readFileSync(jsonFile, "utf8"));
    expect(report.summary.judge.unpriced).toEqual(judge.unpriced);
    expect(report.summary.evals[0].judge.unpriced).toEqual(judge.unpriced);
    expect(report.records[0].usage.judge.unpriced).toMatchObject({
      calls: 1,
      models: ["openai/gpt-5"],
    });
  });
});
