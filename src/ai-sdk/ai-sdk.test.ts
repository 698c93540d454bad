import { APICallError, generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { type } from "arktype";
import * as v from "valibot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { isolateJudges } from "../../test/judge/judge-env.js";
import { configureJudges } from "../judge/config.js";
import { withJudgeLedger } from "../judge/ledger.js";
import { isJudgeUnavailable } from "../judge/unavailable.js";
import { scoreSchema } from "../score/score.js";
import { exactMatchImpl, exactMatchTool } from "../scorers/deterministic/exact-match.js";
import { evalScorersProvider } from "../scorers/deterministic/provider.js";
import { llmJudgeTool, makeLlmJudgeDriver } from "../scorers/judged/llm-judge.js";
import { defineDriver, defineTool, implementTool } from "../tool/tool.js";
import { closeQAFromAiSdk, judgeFromAiSdk, toAiSdkTool } from "./index.js";

const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});
const textAnswer = (text: string) => ({
  content: [{ type: "text" as const, text }],
  finishReason: { unified: "stop" as const, raw: "stop" },
  usage: usage(12, 5),
  warnings: [],
});

let env: Awaited<ReturnType<typeof isolateJudges>>;
beforeEach(async () => {
  env = await isolateJudges();
});
afterEach(async () => {
  await env.cleanup();
});

describe("judgeFromAiSdk", () => {
  it("asks the model for the verdict schema and records its usage", async () => {
    const model = new MockLanguageModelV3({
      doGenerate: textAnswer('{"value":0.8,"rationale":"clear"}'),
    });
    const { result, usage: spent } = await withJudgeLedger(() =>
      judgeFromAiSdk(model)({ output: "answer", criteria: "Is it clear?" }),
    );
    expect(result).toEqual({ value: 0.8, rationale: "clear" });
    expect(spent).toMatchObject({ calls: 1, inputTokens: 12, outputTokens: 5 });
    const call = model.doGenerateCalls[0];
    expect(call?.temperature).toBe(0);
    expect(call?.responseFormat).toMatchObject({ type: "json", name: "judge_verdict" });
  });

  it("gets a repair turn when the model's text is not the schema", async () => {
    const model = new MockLanguageModelV3({
      doGenerate: [
        textAnswer("I would say about 0.8"),
        textAnswer('{"value":0.8,"rationale":"ok"}'),
      ],
    });
    const verdict = await judgeFromAiSdk(model)({ output: "a", criteria: "c" });
    expect(verdict.value).toBe(0.8);
    expect(model.doGenerateCalls).toHaveLength(2);
  });

  it("gets a repair turn naming the tool when the model calls a tool instead of answering", async () => {
    const model = new MockLanguageModelV3({
      doGenerate: [
        {
          content: [
            { type: "tool-call" as const, toolCallId: "c1", toolName: "lookup", input: "{}" },
          ],
          finishReason: { unified: "tool-calls" as const, raw: "tool_calls" },
          usage: usage(10, 2),
          warnings: [],
        },
        textAnswer('{"value":0.7,"rationale":"ok"}'),
      ],
    });
    const verdict = await judgeFromAiSdk(model)({ output: "a", criteria: "c" });
    expect(verdict.value).toBe(0.7);
    expect(model.doGenerateCalls).toHaveLength(2);
    expect(JSON.stringify(model.doGenerateCalls[1]?.prompt)).toContain(
      'the model called the tool \\"lookup\\" instead of answering in text',
    );
  });

  it("answers a repeated judgment from the cache", async () => {
    const model = new MockLanguageModelV3({
      doGenerate: textAnswer('{"value":1,"rationale":"r"}'),
    });
    await judgeFromAiSdk(model)({ output: "same", criteria: "c" });
    await judgeFromAiSdk(model)({ output: "same", criteria: "c" });
    expect(model.doGenerateCalls).toHaveLength(1);
  });

  it("retries a rate-limited model through niceeval's scheduler, honouring retry-after", async () => {
    let calls = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        calls++;
        if (calls === 1) {
          throw new APICallError({
            message: "Too Many Requests",
            url: "http://model.test",
            requestBodyValues: {},
            statusCode: 429,
            responseHeaders: { "retry-after-ms": "40" },
            isRetryable: true,
          });
        }
        return textAnswer('{"value":0.5,"rationale":"r"}');
      },
    });
    const { result, usage: spent } = await withJudgeLedger(() =>
      judgeFromAiSdk(model)({ output: "x", criteria: "c" }),
    );
    expect(result.value).toBe(0.5);
    expect(spent.retries).toBe(1);
  });

  it("does not retry a spent quota, and retries a 200 whose body is not JSON", async () => {
    const quota = new MockLanguageModelV3({
      doGenerate: async () => {
        throw new APICallError({
          message: "You exceeded your current quota",
          url: "http://model.test",
          requestBodyValues: {},
          statusCode: 429,
          responseBody: JSON.stringify({
            error: { message: "You exceeded your current quota", code: "insufficient_quota" },
          }),
          isRetryable: true,
        });
      },
    });
    const error = await judgeFromAiSdk(quota)({ output: "x", criteria: "c" }).catch((e) => e);
    expect(isJudgeUnavailable(error)).toBe(true);
    expect(quota.doGenerateCalls).toHaveLength(1);

    let calls = 0;
    const html = new MockLanguageModelV3({
      doGenerate: async () => {
        calls++;
        if (calls === 1)
          throw new APICallError({
            message: "Invalid JSON response",
            url: "http://model.test",
            requestBodyValues: {},
            statusCode: 200,
            responseBody: "<html><body>Bad gateway</body></html>",
          });
        return textAnswer('{"value":0.5,"rationale":"r"}');
      },
    });
    const { result, usage: spent } = await withJudgeLedger(() =>
      judgeFromAiSdk(html)({ output: "y", criteria: "c" }),
    );
    expect(result.value).toBe(0.5);
    expect(spent.retries).toBe(1);
  });

  it("asks again for an answer cut off at the token limit, even one that parses, and never caches it", async () => {
    // What @ai-sdk/anthropic gives for a verdict tool call that stopped at max_tokens.
    const cut = {
      ...textAnswer('{"value":0.8}'),
      finishReason: { unified: "length" as const, raw: "max_tokens" },
    };
    const model = new MockLanguageModelV3({
      doGenerate: [cut, textAnswer('{"value":0.6,"rationale":"ok"}')],
    });
    const judge = judgeFromAiSdk(model);
    expect(await judge({ output: "a", criteria: "c" })).toEqual({ value: 0.6, rationale: "ok" });
    const repair = model.doGenerateCalls[1]?.prompt.at(-1);
    expect(JSON.stringify(repair)).toContain(
      'the verdict is incomplete (the answer was cut off at the output token limit (finishReason \\"length\\", \\"max_tokens\\" from the provider))',
    );
    // The repaired answer is the one cached, as the question's: asked again, no call.
    expect(await judge({ output: "a", criteria: "c" })).toEqual({ value: 0.6, rationale: "ok" });
    expect(model.doGenerateCalls).toHaveLength(2);

    const alwaysCut = new MockLanguageModelV3({ doGenerate: async () => cut });
    const error = await judgeFromAiSdk(alwaysCut)({ output: "b", criteria: "c" }).catch((e) => e);
    expect(isJudgeUnavailable(error) && error.kind).toBe("malformed");
    expect(error.message).toContain("cut off at the output token limit");
    await judgeFromAiSdk(alwaysCut)({ output: "b", criteria: "c" }).catch(() => undefined);
    expect(alwaysCut.doGenerateCalls).toHaveLength(4);
  });

  it("names a refused call's endpoint and what to check, under the judge's name said once", async () => {
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        // What @ai-sdk/anthropic throws for a 401 from its endpoint.
        throw new APICallError({
          message: "invalid x-api-key",
          url: "http://127.0.0.1:8787/v1/messages",
          requestBodyValues: {},
          statusCode: 401,
          isRetryable: false,
        });
      },
    });
    const error = await judgeFromAiSdk(model)({ output: "x", criteria: "c" }).catch((e) => e);
    expect(isJudgeUnavailable(error) && error.kind).toBe("failed");
    expect(error.message).toBe(
      'judge "ai-sdk:mock-provider/mock-model-id" unavailable: AI SDK model mock-provider/mock-model-id at http://127.0.0.1:8787/v1/messages answered HTTP 401: invalid x-api-key (check the API key of the AI SDK provider: its `apiKey` option, else its environment variable)',
    );
    expect(model.doGenerateCalls).toHaveLength(1);
  });

  it("prices an AI SDK model under its model string, its model id or its AI SDK name", async () => {
    const price = { inputPerMTok: 1_000_000, outputPerMTok: 2_000_000 };
    const spent = async (prices: Record<string, typeof price>) => {
      configureJudges({ cache: false, prices });
      const model = new MockLanguageModelV3({
        provider: "anthropic.messages",
        modelId: "claude-haiku-4-5",
        doGenerate: textAnswer('{"value":0.8,"rationale":"clear"}'),
      });
      return (await withJudgeLedger(() => judgeFromAiSdk(model)({ output: "a", criteria: "c" })))
        .usage;
    };
    for (const key of [
      "anthropic/claude-haiku-4-5",
      "claude-haiku-4-5",
      "anthropic.messages/claude-haiku-4-5",
    ])
      expect((await spent({ [key]: price })).costUsd, key).toBe(12 + 2 * 5);
    expect((await spent({ "openai/gpt-4.1-mini": price })).unpriced).toEqual({
      calls: 1,
      inputTokens: 12,
      outputTokens: 5,
      models: ["anthropic/claude-haiku-4-5"],
    });
  });

  it("refuses, when made, a provider, its model factory or undefined in place of a model", () => {
    const model = new MockLanguageModelV3({ doGenerate: textAnswer("{}") });
    // What createOpenAI({ … }) returns: a function that makes models, not a model.
    const provider = Object.assign((id: string) => ({ ...model, modelId: id }), {
      languageModel: (id: string) => ({ ...model, modelId: id }),
      chat: (id: string) => ({ ...model, modelId: id }),
    });
    expect(() => judgeFromAiSdk(provider as never)).toThrow(
      'judgeFromAiSdk: got an AI SDK provider, not a model; pass a model such as openai("gpt-4.1-mini") (the provider called with a model id, or a gateway model id string), not the provider',
    );
    expect(() => closeQAFromAiSdk(provider.chat as never)).toThrow(
      "closeQAFromAiSdk: got a function (a provider's model factory?), not a model",
    );
    expect(() => judgeFromAiSdk(undefined as never)).toThrow(
      "judgeFromAiSdk: got undefined, not a model",
    );
    expect(() => closeQAFromAiSdk(undefined as never)).toThrow(
      "closeQAFromAiSdk: got undefined, not a model",
    );
    expect(typeof judgeFromAiSdk(model)).toBe("function");
    expect(typeof judgeFromAiSdk("openai/gpt-4.1-mini")).toBe("function");
  });

  it("backs a closeQA judge", async () => {
    const model = new MockLanguageModelV3({
      doGenerate: textAnswer('{"verdict":"insufficient","reason":"no map"}'),
    });
    const answer = await closeQAFromAiSdk(model)({ material: "m", question: "q" });
    expect(answer).toMatchObject({ state: "insufficient", reason: "no map" });
  });
});

describe("toAiSdkTool", () => {
  it("lets an AI SDK agent call a niceeval scorer tool", async () => {
    const judged = toAiSdkTool(
      llmJudgeTool,
      makeLlmJudgeDriver(async () => ({ value: 0.9, rationale: "fine" })),
    );
    const agent = new MockLanguageModelV3({
      doGenerate: [
        {
          content: [
            {
              type: "tool-call" as const,
              toolCallId: "call-1",
              toolName: "judge_answer",
              input: JSON.stringify({ output: "Paris", criteria: "Is it the capital of France?" }),
            },
          ],
          finishReason: { unified: "tool-calls" as const, raw: "tool_calls" },
          usage: usage(10, 10),
          warnings: [],
        },
        textAnswer("done"),
      ],
    });
    const result = await generateText({
      model: agent,
      tools: { judge_answer: judged },
      prompt: "judge it",
      stopWhen: stepCountIs(2),
    });
    const toolResult = result.steps[0]?.toolResults[0];
    expect(toolResult?.output).toEqual({
      value: 0.9,
      passed: true,
      label: "llm-judge",
      rationale: "fine",
    });
  });

  it("refuses, when built, a driver that does not implement the tool, and what is not a driver or a tool", () => {
    const cite = defineTool({
      id: "acme.cite-check",
      description: "Check an answer cites an order",
      inputSchema: z.object({ orderId: z.string() }),
      outputSchema: scoreSchema,
    });
    expect(() => toAiSdkTool(cite, evalScorersProvider)).toThrow(
      'toAiSdkTool("acme.cite-check"): `driver` niceeval.eval-scorers does not implement tool "acme.cite-check"; pass as `driver` a driver that implements it: defineDriver({ id, implementations: [implementTool(tool, run)] })',
    );
    expect(() => toAiSdkTool(llmJudgeTool, evalScorersProvider)).toThrow(
      'pass driver: makeLlmJudgeDriver(judge) (import { makeLlmJudgeDriver } from "niceeval/scorers")',
    );
    expect(() => toAiSdkTool(exactMatchTool, [evalScorersProvider] as never)).toThrow(
      'toAiSdkTool("eval.exact-match"): `driver` is an array, not a driver',
    );
    expect(() => toAiSdkTool(exactMatchTool, exactMatchImpl as never)).toThrow(
      "`driver` is a tool implementation, not a driver: bundle it with defineDriver",
    );
    expect(() => toAiSdkTool(exactMatchTool, undefined as never)).toThrow(
      'toAiSdkTool("eval.exact-match"): `driver` is undefined, not a driver',
    );
    expect(() => toAiSdkTool({ id: "x" } as never, evalScorersProvider)).toThrow(
      'toAiSdkTool("x"): `tool` must be a tool made by defineTool (a built-in one: exactMatchTool, regexMatchTool, …), got an object that is not a tool',
    );
    expect(toAiSdkTool(exactMatchTool, evalScorersProvider).description).toBe(
      exactMatchTool.description,
    );
  });

  it("refuses a tool whose input schema gives the AI SDK no JSON Schema, and shows the model an arktype one", async () => {
    const valibotCity = defineTool({
      id: "acme.city",
      description: "Score a city",
      inputSchema: v.object({ city: v.string() }),
      outputSchema: scoreSchema,
    });
    const arkCity = defineTool({
      id: "acme.city",
      description: "Score a city",
      inputSchema: type({ city: "string" }),
      outputSchema: scoreSchema,
    });
    const implement = (tool: typeof valibotCity | typeof arkCity) =>
      defineDriver({
        id: "acme",
        implementations: [
          implementTool(tool, ({ city }) => ({ value: 1, passed: true, label: `city ${city}` })),
        ],
      });
    expect(() => toAiSdkTool(valibotCity, implement(valibotCity))).toThrow(
      'toAiSdkTool("acme.city"): the tool\'s inputSchema, a Standard Schema of vendor "valibot", gives no JSON Schema (its "~standard" has no jsonSchema), which the AI SDK needs to show the model the tool\'s input; write the inputSchema with zod, or with another Standard Schema that gives one (arktype)',
    );
    const agent = new MockLanguageModelV3({ doGenerate: textAnswer("done") });
    await generateText({
      model: agent,
      tools: { city: toAiSdkTool(arkCity, implement(arkCity)) },
      prompt: "x",
    });
    expect(agent.doGenerateCalls[0]?.tools?.[0]).toMatchObject({
      name: "city",
      inputSchema: { type: "object", properties: { city: { type: "string" } } },
    });
  });
});
