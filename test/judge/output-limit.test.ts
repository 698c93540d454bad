// A judge whose answers are cut off at the output token limit (a reasoning model spends its
// reasoning from the same budget, and answers nothing): unavailable with what to raise, and a
// limit that configureJudges raises for every judge call.
import { describe, expect, it } from "vitest";
import { configureJudges } from "../../src/judge/config.js";
import { judgeFromModel } from "../../src/judge/judge-from-model.js";
import { JudgeUnavailableError } from "../../src/judge/unavailable.js";
import { expectations } from "../../src/scorers/judged/expectations.js";
import { fake } from "../support/fake-llm-server.js";
import { fakeJudgeServer } from "./judge-env.js";

const server = fakeJudgeServer();

const ask = () => judgeFromModel("m")({ output: "thanks", criteria: "Polite?" });

describe("the judges' output token limit", () => {
  it("says, when the answers were cut off at it, what the limit was and how to raise it", async () => {
    server().enqueue(fake.cutOff(""), fake.cutOff(""));
    const error = await ask().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JudgeUnavailableError);
    expect((error as Error).message).toContain(
      "the answers were cut off at 400 output tokens: raise it with configureJudges({ maxOutputTokens }) (a reasoning model spends its reasoning from it)",
    );
  });

  it("is raised for every judge call by configureJudges({ maxOutputTokens }), never lowered", async () => {
    configureJudges({ maxOutputTokens: 4000 });
    server().enqueue(fake.json({ value: 1, rationale: "polite" }));
    await ask();
    server().enqueue(fake.json({ checks: [{ id: 1, met: true, why: "says thanks" }] }));
    await expectations("Say thanks", { text: "thanks", calls: [] }, { should: ["thanks"] }, "m");
    expect(server().requests.map((request) => request.body.max_tokens)).toEqual([4000, 4000]);

    configureJudges({ maxOutputTokens: 10 });
    server().enqueue(fake.json({ value: 1, rationale: "polite" }));
    await judgeFromModel("m")({ output: "thank you", criteria: "Polite?" });
    expect(server().requests.at(-1)?.body.max_tokens).toBe(400);
  });

  it("refuses a limit that is not a whole number above 0", () => {
    expect(() => configureJudges({ maxOutputTokens: 0.5 })).toThrow(
      "configureJudges: `maxOutputTokens` must be a whole number > 0, got 0.5",
    );
  });
});
