// A judge call the attempt's time limit cuts off is named as what the time went to (the judge,
// its endpoint, the try), not as a slow scorer; against a real judge endpoint on 127.0.0.1 that
// never answers.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defineAdapter } from "../../src/adapter/define-adapter.js";
import type { AttemptRecord } from "../../src/eval/record.js";
import { bindScorer, defineSuite } from "../../src/eval/suite.js";
import { createCloseQAJudge } from "../../src/judge/close-qa.js";
import { configureJudges } from "../../src/judge/config.js";
import { judgeFromModel } from "../../src/judge/judge-from-model.js";
import { runEvals } from "../../src/runner/run.js";
import { llmJudge } from "../../src/scorers/judged/llm-judge.js";
import { type FakeLlmServer, fake, startFakeLlmServer } from "../support/fake-llm-server.js";
import { isolateJudges } from "./judge-env.js";

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

const helpful = () =>
  bindScorer(
    llmJudge<string>({
      id: "helpful",
      judge: judgeFromModel("openai/hang"),
      criteria: "Is it helpful?",
      mapOutput: ({ output }) => output,
    }),
  );

async function scoredOnce(timeoutMs: number): Promise<AttemptRecord | undefined> {
  const suite = defineSuite<string, string>({
    id: "slowjudge",
    cases: [{ id: "c0", input: "hi" }],
    target: () => "an answer",
    scorers: [helpful()],
  });
  const records: AttemptRecord[] = [];
  await runEvals([{ eval: suite }], {
    timeoutMs,
    origin: "cli",
    onRecord: (r) => records.push(r),
  });
  return records[0];
}

describe("a judge call cut off by the attempt's time limit", () => {
  it("names the judge, its endpoint and the try it waited on, and the judge's timeoutMs to lower", async () => {
    server.enqueue(fake.hang());
    const record = await scoredOnce(300);
    const judgment = record?.judgments[0];
    expect(judgment?.state).toBe("errored");
    expect(judgment?.reason).toBe(
      `scorer "helpful" timed out after 300 ms while judge "openai/hang" at ${server.openaiBaseURL} was still waiting for the answer to try 1 of 4; raise --timeout or the eval's timeoutMs, or lower the judge's timeoutMs (2000 ms, configureJudges({ timeoutMs })) below it, so that a slow try is given up and sent again within the limit`,
    );
    expect(judgment?.judge).toMatchObject({ calls: 1 });
  });

  it("says the judge was waiting to try again, and what the last try came to", async () => {
    configureJudges({ timeoutMs: 100, retryBaseMs: 5_000, retryMaxMs: 5_000 });
    server.enqueue(fake.hang());
    const record = await scoredOnce(400);
    expect(record?.judgments[0]?.reason).toBe(
      `scorer "helpful" timed out after 400 ms while judge "openai/hang" at ${server.openaiBaseURL} was waiting to send try 2 of 4 after: openai-compatible@${server.openaiBaseURL} gave no answer within 100 ms (raise timeoutMs with configureJudges); raise --timeout or the eval's timeoutMs to leave room for the judge's tries (up to 4, each given up after the judge's timeoutMs, 100 ms: configureJudges({ timeoutMs, maxRetries }))`,
    );
  });

  it("says the endpoint asked for a wait past the limit, and not to shorten the judge's tries", async () => {
    server.enqueue(fake.rateLimited(30));
    const record = await scoredOnce(400);
    expect(record?.judgments[0]?.reason).toMatch(
      /^scorer "helpful" timed out after 400 ms while judge "openai\/hang" at \S+ was waiting to send try 2 of 4 after: .*429.* \(the endpoint asked to wait 30 s: Retry-After\); raise --timeout or the eval's timeoutMs above that wait, or set configureJudges\(\{ maxRetryAfterMs \}\) below 30000 ms so that a judge asked to wait that long gives up at once$/,
    );
  });

  it("names the judge a t.closeQA was waiting on", async () => {
    server.enqueue(fake.hang());
    const adapter = defineAdapter({
      name: "Desk",
      create: async () => ({ reply: "Refund of 88 EUR" }),
      assertions: () => ({}),
    });
    const record = await adapter
      .defineScoreEval({
        description: "refund",
        judge: createCloseQAJudge("openai/hang"),
        timeoutMs: 300,
        test: (t) => {
          t.closeQA("Refund of 88 EUR", "Is a refund stated?");
        },
      })
      .run();
    expect(record.judgments[0]?.reason).toMatch(
      /^t\.closeQA "Is a refund stated\?" timed out after 300 ms while judge "openai\/hang" at http:\/\/127\.0\.0\.1:\d+\/v1 was still waiting for the answer to try 1 of 4; raise the timeoutMs of the run/,
    );
  });
});
