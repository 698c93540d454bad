// Judges ask for one JSON answer, never a stream: a server or proxy that streams by default is
// told `stream: false`, and one that streams all the same is unavailable at once, saying so.
import { describe, expect, it } from "vitest";
import { judgeFromModel } from "../../src/judge/judge-from-model.js";
import { JudgeUnavailableError } from "../../src/judge/unavailable.js";
import { fake } from "../support/fake-llm-server.js";
import { fakeJudgeServer } from "./judge-env.js";

const server = fakeJudgeServer("anthropic");

const ask = (model: string, output: string) =>
  judgeFromModel(model)({ output, criteria: "Is it polite?" });
const verdict = { value: 0.75, rationale: "polite" };

describe("a judge endpoint that streams", () => {
  it("is asked for no stream, by both protocols, and answers as usual", async () => {
    process.env.NICEEVAL_JUDGE_BASE_URL = server().openaiBaseURL;
    server().enqueue(fake.streamedByDefault(verdict));
    await expect(ask("m", "thanks")).resolves.toEqual(verdict);
    process.env.NICEEVAL_JUDGE_BASE_URL = "";
    server().enqueue(fake.streamedByDefault(verdict));
    await expect(ask("anthropic/claude-haiku-4.5", "thanks")).resolves.toEqual(verdict);
    expect(server().requests.map((request) => request.body.stream)).toEqual([false, false]);
  });

  it("that streams all the same is unavailable at once, naming the event stream", async () => {
    process.env.NICEEVAL_JUDGE_BASE_URL = server().openaiBaseURL;
    server().enqueue(fake.streamedAlways(verdict), fake.streamedAlways(verdict));
    const error = await ask("m", "no thanks").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JudgeUnavailableError);
    expect((error as Error).message).toContain("text/event-stream");
    expect(server().requests).toHaveLength(1);
  });
});
