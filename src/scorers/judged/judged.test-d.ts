import type { LanguageModel } from "ai";
import { describe, expectTypeOf, it } from "vitest";
import { judgeFromAiSdk, toAiSdkTool } from "../../ai-sdk/index.js";
import type { ScorerBinding } from "../../eval/suite.js";
import type { JudgeFn } from "../../judge/types.js";
import type { Score } from "../../score/score.js";
import type { Mark } from "../deterministic/calls.js";
import {
  expectations,
  type LlmJudgeInput,
  llmJudge,
  llmJudgeTool,
  makeLlmJudgeDriver,
} from "./index.js";

describe("judged scorer types", () => {
  it("expectations returns a Mark and takes the seed's arguments", () => {
    expectTypeOf(expectations).returns.toEqualTypeOf<Promise<Mark>>();
    expectTypeOf(expectations)
      .parameter(2)
      .toMatchTypeOf<{ situation?: string | undefined; should?: readonly string[] | undefined }>();
    expectTypeOf(expectations).parameter(3).toEqualTypeOf<string>();
  });

  it("llmJudge infers the output type in mapOutput and yields a ScorerBinding", () => {
    const judge: JudgeFn = async () => ({ value: 1 });
    const binding = llmJudge<{ text: string }>({
      id: "x",
      judge,
      criteria: "c",
      mapOutput: ({ output }) => {
        expectTypeOf(output).toEqualTypeOf<{ text: string }>();
        return output.text;
      },
    });
    expectTypeOf(binding).toEqualTypeOf<ScorerBinding<{ text: string }, LlmJudgeInput>>();
    // @ts-expect-error mapOutput must return JSON
    llmJudge<{ text: string }>({ id: "x", judge, criteria: "c", mapOutput: () => new Date() });
  });

  it("the AI SDK bridge takes a LanguageModel and keeps the tool's types", () => {
    expectTypeOf(judgeFromAiSdk).parameter(0).toEqualTypeOf<LanguageModel>();
    expectTypeOf(judgeFromAiSdk).returns.toEqualTypeOf<JudgeFn>();
    const tool = toAiSdkTool(
      llmJudgeTool,
      makeLlmJudgeDriver(async () => ({ value: 1 })),
    );
    expectTypeOf(tool.execute).returns.toEqualTypeOf<Promise<Score>>();
    expectTypeOf(tool.execute).parameter(0).toEqualTypeOf<LlmJudgeInput>();
  });
});

describe("seed 000's list fields", () => {
  it("are string[], as the seed writes them", () => {
    expectTypeOf<import("../index.js").ExpectedOutcome["should"]>().toEqualTypeOf<
      string[] | undefined
    >();
    expectTypeOf<import("../index.js").ExpectedOutcome["shouldNot"]>().toEqualTypeOf<
      string[] | undefined
    >();
    expectTypeOf<import("../index.js").ExpectedCalls["mustCall"]>().toEqualTypeOf<
      string[] | undefined
    >();
    expectTypeOf<import("../index.js").ExpectedCalls["atMostOnce"]>().toEqualTypeOf<
      string[] | undefined
    >();
  });
});
