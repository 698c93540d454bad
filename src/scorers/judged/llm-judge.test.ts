import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isolateJudges } from "../../../test/judge/judge-env.js";
import {
  type FakeLlmServer,
  fake,
  startFakeLlmServer,
} from "../../../test/support/fake-llm-server.js";
import { bindScorer, defineSuite } from "../../eval/suite.js";
import { judgeFromModel } from "../../judge/judge-from-model.js";
import type { JudgeFn } from "../../judge/types.js";
import { isJudgeUnavailable } from "../../judge/unavailable.js";
import { runTool } from "../../tool/run-tool.js";
import { llmJudge, llmJudgeTool, makeLlmJudgeDriver } from "./llm-judge.js";

const judgeOnce =
  (verdict: unknown): JudgeFn =>
  async () =>
    verdict as never;
const score = (judge: JudgeFn, threshold?: number) =>
  runTool({
    tool: llmJudgeTool,
    candidates: [makeLlmJudgeDriver(judge, threshold === undefined ? {} : { threshold })],
    input: { output: "the answer", criteria: "Is it helpful?" },
  });

/** The record of a one-case suite scored by an llm-judge binding around `judge`. */
async function judgedCase(judge: JudgeFn) {
  const suite = defineSuite({
    id: "judged",
    cases: [{ id: "one", input: "hi" }],
    target: (input: string) => ({ text: input }),
    scorers: [
      bindScorer(
        llmJudge<{ text: string }>({
          id: "helpful",
          judge,
          criteria: "c",
          mapOutput: ({ output }) => output.text,
        }),
      ),
    ],
  });
  return suite.runCase(
    { id: "one", index: 0, input: "hi" },
    { runId: "r", signal: new AbortController().signal },
  );
}

describe("eval.llm-judge with an injected judge", () => {
  it("refuses, when made, an llmJudge without mapOutput, criteria or a judge function", () => {
    const judge: JudgeFn = async () => ({ value: 1 });
    const mapOutput = ({ output }: { output: unknown }) => String(output);
    expect(() => llmJudge({ id: "no-map", judge, criteria: "c" } as never)).toThrow(
      'llmJudge("no-map"): `mapOutput` must be a function ({ output, expected, input, caseId }) => the part of the output the judge sees; got undefined',
    );
    expect(() => llmJudge({ id: "no-criteria", judge, mapOutput } as never)).toThrow(
      'llmJudge("no-criteria"): `criteria` must be a non-empty string, what the judge checks; got undefined',
    );
    expect(() =>
      llmJudge({
        id: "string-judge",
        judge: "openai/gpt-4.1-mini" as never,
        criteria: "c",
        mapOutput,
      }),
    ).toThrow(
      'llmJudge("string-judge"): `judge` must be a JudgeFn, got a string; judgeFromModel("openai/gpt-4.1-mini") makes one of a model string',
    );
    // Optional, but a field name in place of the function would fail every case.
    expect(() =>
      llmJudge({ id: "field", judge, criteria: "c", mapOutput, mapExpected: "answer" as never }),
    ).toThrow(
      'llmJudge("field"): `mapExpected` must be a function ({ output, expected, input, caseId }) => what the judge compares against; got a string',
    );
    expect(() => makeLlmJudgeDriver(undefined as never)).toThrow(
      "makeLlmJudgeDriver: `judge` must be a JudgeFn, got undefined",
    );
  });

  it("compares the value with the threshold, and lets an explicit passed win", async () => {
    expect(await score(judgeOnce({ value: 0.8, rationale: "good" }), 0.7)).toEqual({
      value: 0.8,
      passed: true,
      label: "llm-judge",
      rationale: "good",
    });
    expect((await score(judgeOnce({ value: 0.9, passed: false }))).passed).toBe(false);
    expect((await score(judgeOnce({ value: 0.1, passed: true }))).passed).toBe(true);
    expect((await score(judgeOnce({ value: 0.4 }))).passed).toBe(false);
  });

  it("takes a verdict given as a JSON string, as the style scorers do", async () => {
    const judge = (async () => '{"value":0.97,"rationale":"bien"}') as unknown as JudgeFn;
    expect(await score(judge)).toEqual({
      value: 0.97,
      passed: true,
      label: "llm-judge",
      rationale: "bien",
    });
    const text = (async () => "very good") as unknown as JudgeFn;
    const error = await score(text).catch((e: unknown) => e);
    expect(isJudgeUnavailable(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /malformed verdict \(verdict: .*received string; got "very good"\)/,
    );
  });

  it("is unavailable on a value outside 0..1 (a judge on a 1-10 scale passes nothing)", async () => {
    for (const value of [1.7, 7, -2]) {
      const error = await score(judgeOnce({ value, passed: true })).catch((e: unknown) => e);
      expect(isJudgeUnavailable(error)).toBe(true);
      expect((error as Error).message).toMatch(/malformed verdict \(value: .*"value":/);
    }
  });

  it("clamps a value that misses 0..1 by floating-point rounding alone (a judge's mean of weights)", async () => {
    const over = (0.1 + 0.2) / 0.3; // 1.0000000000000002
    const under = 1 - 0.9 - 0.1; // -2.7755575615628914e-17
    expect(await score(judgeOnce({ value: over }))).toMatchObject({ value: 1, passed: true });
    expect(await score(judgeOnce({ value: under }))).toMatchObject({ value: 0, passed: false });
    expect(isJudgeUnavailable(await score(judgeOnce({ value: 1.001 })).catch((e) => e))).toBe(true);
  });

  it("is unavailable, never a 0, on a malformed verdict, as a model's answer is", async () => {
    for (const verdict of [
      { value: Number.NaN },
      { rationale: "no value" },
      null,
      { value: "0.9" },
      { score: 0.9 },
    ]) {
      const error = await score(judgeOnce(verdict)).catch((e: unknown) => e);
      expect(isJudgeUnavailable(error)).toBe(true);
      expect(error).toMatchObject({ kind: "malformed", model: "llm-judge" });
      expect((error as Error).message).toMatch(/^judge "llm-judge" unavailable: malformed verdict/);
    }
  });

  it("quotes a verdict's NaN or Infinity as it came, not as JSON's null", async () => {
    for (const [value, shown] of [
      [Number.NaN, "NaN"],
      [Number.POSITIVE_INFINITY, "Infinity"],
    ] as const) {
      const error = await score(judgeOnce({ value, rationale: "oops" })).catch((e: unknown) => e);
      expect((error as Error).message).toContain(`got {"value":${shown},"rationale":"oops"}`);
    }
  });

  it("leaves a suite's judgment unavailable with the reason on a malformed verdict", async () => {
    const record = await judgedCase(judgeOnce({ score: 0.9 }));
    expect(record.judgments[0]).toMatchObject({ state: "unavailable", earned: null });
    expect(record.judgments[0]?.reason).toContain('got {"score":0.9}');
    expect(record.score.state).toBe("unavailable");
  });

  it("gives an unavailable judgment the source of an answered one, so compare pairs the two", async () => {
    const answered = await judgedCase(judgeOnce({ value: 0.8 }));
    const unavailable = await judgedCase(judgeOnce({ score: 0.9 }));
    expect(answered.judgments[0]).toMatchObject({ state: "matched", source: "eval.llm-judge" });
    expect(unavailable.judgments[0]).toMatchObject({
      state: "unavailable",
      source: "eval.llm-judge",
    });
  });

  it("rejects a threshold outside 0..1 when the driver is built", () => {
    expect(() => makeLlmJudgeDriver(judgeOnce({ value: 1 }), { threshold: 2 })).toThrow(
      "makeLlmJudgeDriver: `threshold` must be a number from 0 to 1 (a share: 0.02 for 2%), got 2",
    );
  });

  it("names llmJudge and its scorer when the binding's threshold is out of range", () => {
    const binding = (threshold: unknown) => () =>
      llmJudge({
        id: "helpful",
        judge: judgeOnce({ value: 1 }),
        criteria: "c",
        mapOutput: ({ output }) => String(output),
        threshold: threshold as number,
      });
    expect(binding(70)).toThrow(
      'llmJudge("helpful"): `threshold` must be a number from 0 to 1 (a share: 0.7 for 70%), got 70',
    );
    expect(binding("0.7")).toThrow(
      'llmJudge("helpful"): `threshold` must be a number from 0 to 1, got "0.7"',
    );
    expect(binding(0.7)).not.toThrow();
  });

  it("rejects a misspelt option when the driver or binding is built", () => {
    expect(() => makeLlmJudgeDriver(judgeOnce({ value: 1 }), { treshold: 0.9 } as never)).toThrow(
      'makeLlmJudgeDriver: unknown key "options.treshold" (did you mean "options.threshold"?)',
    );
    expect(() =>
      llmJudge({
        id: "helpful",
        judge: judgeOnce({ value: 1 }),
        criteria: "helpful?",
        mapOutput: () => "x",
        mapExpectd: () => "y",
      } as never),
    ).toThrow('llmJudge("helpful"): unknown key "mapExpectd" (did you mean "mapExpected"?)');
  });
});

describe("eval.llm-judge through a model on the fake server", () => {
  let server: FakeLlmServer;
  let env: Awaited<ReturnType<typeof isolateJudges>>;
  beforeEach(async () => {
    env = await isolateJudges();
    server = await startFakeLlmServer();
    process.env.ANTHROPIC_API_KEY = "k";
    process.env.ANTHROPIC_BASE_URL = server.anthropicBaseURL;
  });
  afterEach(async () => {
    await server.close();
    await env.cleanup();
  });

  it("scores a suite case end to end with a forced tool call", async () => {
    server.enqueue(fake.json({ value: 0.75, rationale: "mostly helpful" }));
    const binding = bindScorer(
      llmJudge<{ text: string }>({
        id: "helpfulness",
        judge: judgeFromModel("anthropic/claude-haiku-4.5"),
        criteria: "Is the answer helpful?",
        threshold: 0.7,
        mapOutput: ({ output }) => output.text,
      }),
    );
    const result = await binding.run({
      output: { text: "Restart the router." },
      expected: "restart",
      input: {},
      caseId: "c1",
    });
    expect(result).toEqual({
      value: 0.75,
      passed: true,
      label: "helpfulness",
      rationale: "mostly helpful",
    });
    const sent = JSON.stringify(server.requests[0]?.body.messages);
    expect(sent).toContain("Restart the router.");
    expect(sent).toContain("## Expected\\nrestart");
  });

  it("repairs an out-of-range value once", async () => {
    server.enqueue(
      fake.json({ value: 7, rationale: "x" }),
      fake.json({ value: 0.7, rationale: "fixed" }),
    );
    const verdict = await judgeFromModel("anthropic/claude-haiku-4.5")({
      output: "o",
      criteria: "c",
    });
    expect(verdict).toEqual({ value: 0.7, rationale: "fixed" });
    expect(server.requests).toHaveLength(2);
  });

  it("is unavailable (not a 0) when the key is missing, and a suite keeps running", async () => {
    delete process.env.ANTHROPIC_API_KEY;
    const judge = judgeFromModel("anthropic/claude-haiku-4.5");
    const error = await judge({ output: "o", criteria: "c" }).catch((e: unknown) => e);
    expect(isJudgeUnavailable(error)).toBe(true);
    const record = await judgedCase(judge);
    expect(record.judgments[0]?.reason).toContain("set ANTHROPIC_API_KEY");
    expect(record.judgments[0]?.earned).toBeNull();
    expect(server.requests).toHaveLength(0);
  });
});
