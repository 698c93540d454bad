import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isolateJudges } from "../../../test/judge/judge-env.js";
import {
  type FakeLlmServer,
  fake,
  startFakeLlmServer,
} from "../../../test/support/fake-llm-server.js";
import { withJudgeLedger } from "../../judge/ledger.js";
import { JudgeUnavailableError } from "../../judge/unavailable.js";
import { type AgentRun, toolCallsOf } from "../deterministic/calls.js";
import { checkChecks, type ExpectedOutcome, expectations } from "./expectations.js";

const run = {
  text: "The checkout site is down; I restarted it and it is back.",
  calls: [
    { toolName: "status", input: { site: "checkout" }, output: { up: false } },
    { toolName: "restart" },
  ],
};
const expected = {
  situation: "The checkout site has been down for an hour.",
  should: ["says which site is down", "restarts the site"],
  shouldNot: ["invents an outage cause"],
};
const checks = (...met: unknown[]) => ({
  checks: met.map((m, i) => ({ id: i + 1, met: m, why: `reason ${i + 1}` })),
});

let server: FakeLlmServer;
let env: Awaited<ReturnType<typeof isolateJudges>>;
beforeEach(async () => {
  env = await isolateJudges();
  server = await startFakeLlmServer({ apiKey: "sk-test" });
});
afterEach(async () => {
  await server.close();
  await env.cleanup();
});

const useAnthropic = () => {
  process.env.ANTHROPIC_API_KEY = "sk-test";
  process.env.ANTHROPIC_BASE_URL = server.anthropicBaseURL;
};
const useOpenAI = () => {
  process.env.OPENAI_API_KEY = "sk-test";
  process.env.OPENAI_BASE_URL = server.openaiBaseURL;
};

describe("expectations through the Anthropic Messages API", () => {
  it("scores the share of lines met with one forced tool call, naming each missed line", async () => {
    useAnthropic();
    server.enqueue(fake.json(checks(true, false, true)));
    const { result: mark, usage } = await withJudgeLedger(() =>
      expectations(
        "Is checkout up?",
        run,
        expected,
        "anthropic/claude-haiku-4.5",
        "Keeps shop sites up.",
      ),
    );
    expect(mark.score).toBeCloseTo(2 / 3);
    expect(mark.reason).toBe('2/3 expectations met; missed should "restarts the site": reason 2');
    expect(server.requests).toHaveLength(1);
    const request = server.requests[0];
    expect(request?.headers["x-api-key"]).toBe("sk-test");
    expect(request?.headers["anthropic-version"]).toBe("2023-06-01");
    expect(request?.body.model).toBe("claude-haiku-4-5");
    expect(request?.body.tool_choice).toEqual({ type: "tool", name: "expectation_checks" });
    const prompt = JSON.stringify(request?.body.messages);
    expect(prompt).toContain("The checkout site has been down for an hour.");
    expect(prompt).toContain("Keeps shop sites up.");
    expect(prompt).toContain("3. The agent should not: invents an outage cause");
    expect(usage.calls).toBe(1);
    expect(usage.inputTokens).toBeGreaterThan(0);
  });

  it("reads checks the model gave as a JSON string in its tool input, as Claude may, with one call", async () => {
    useAnthropic();
    server.enqueue(fake.json({ checks: JSON.stringify(checks(true, false, true).checks) }));
    const mark = await expectations("Is checkout up?", run, expected, "anthropic/claude-haiku-4.5");
    expect(mark.score).toBeCloseTo(2 / 3);
    expect(server.requests).toHaveLength(1);
  });

  it("returns 1 without any call when there are no lines", async () => {
    const mark = await expectations(
      "hi",
      run,
      { situation: "nothing to check" },
      "anthropic/claude-haiku-4.5",
    );
    expect(mark).toEqual({ score: 1, reason: "no should or shouldNot lines to judge" });
    expect(server.requests).toHaveLength(0);
  });

  it("throws, before any call, when should or shouldNot is a string instead of a list", async () => {
    await expect(
      expectations(
        "hi",
        run,
        { shouldNot: "invents a cause" } as unknown as ExpectedOutcome,
        "anthropic/claude-haiku-4.5",
      ),
    ).rejects.toThrow(
      'expectations: expected.shouldNot must be a list of lines (got "invents a cause"); write shouldNot: ["invents a cause"]',
    );
    expect(server.requests).toHaveLength(0);
  });

  it("throws, before any call, for a blank line (a list split on newlines), which the judge would decide anyway", async () => {
    await expect(
      expectations(
        "hi",
        run,
        { should: ["names the site", "  "], shouldNot: [""] },
        "anthropic/claude-haiku-4.5",
      ),
    ).rejects.toThrow(
      "expectations: expected.should[1] is blank: remove it, or write the line it stands for",
    );
    expect(server.requests).toHaveLength(0);
  });

  it("refuses a misspelt key of expected, saying the one meant, before any call (never a 1)", async () => {
    delete process.env.ANTHROPIC_API_KEY;
    await expect(
      expectations(
        "p",
        { text: "", calls: [] },
        { shoud: ["says which site is down"] } as unknown as ExpectedOutcome,
        "anthropic/claude-haiku-4.5",
      ),
    ).rejects.toThrow(
      'expectations: unknown key "expected.shoud" (did you mean "expected.should"?); known keys: expected.situation, expected.should, expected.shouldNot',
    );
    expect(server.requests).toHaveLength(0);
  });

  it("leaves alone a key that is no misspelling, such as a case's calls rules beside its lines", async () => {
    const wider = { situation: "s", calls: { mustCall: ["refund"] } } as ExpectedOutcome;
    const mark = await expectations("p", run, wider, "anthropic/claude-haiku-4.5");
    expect(mark).toEqual({ score: 1, reason: "no should or shouldNot lines to judge" });
  });

  it("throws, before any call, for a tool call without its toolName (shown to the judge as undefined)", async () => {
    await expect(
      expectations(
        "hi",
        { text: "done", calls: [{ name: "restart" }] } as unknown as AgentRun,
        expected,
        "anthropic/claude-haiku-4.5",
      ),
    ).rejects.toThrow(
      'expectations: call 1 of the run has no `toolName` (a string; got {"name":"restart"})',
    );
    // A run without tool calls is judged on its reply alone.
    const { calls: _, ...textOnly } = run;
    expect(() => toolCallsOf("expectations", textOnly as AgentRun, false)).not.toThrow();
    expect(server.requests).toHaveLength(0);
  });

  it("is unavailable, naming ANTHROPIC_API_KEY, before any network call when the key is missing", async () => {
    process.env.ANTHROPIC_BASE_URL = server.anthropicBaseURL;
    const error = await expectations("q", run, expected, "anthropic/claude-haiku-4.5").catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(JudgeUnavailableError);
    expect((error as JudgeUnavailableError).code).toBe("JUDGE_UNAVAILABLE");
    expect((error as JudgeUnavailableError).kind).toBe("unconfigured");
    expect((error as Error).message).toContain("set ANTHROPIC_API_KEY");
    expect(server.requests).toHaveLength(0);
  });
});

describe("expectations through OpenAI chat completions", () => {
  it("asks for a JSON-schema response and reads it", async () => {
    useOpenAI();
    server.enqueue(fake.json(checks(true, true, true)));
    const mark = await expectations("Is checkout up?", run, expected, "openai/gpt-4.1-mini");
    expect(mark).toEqual({ score: 1, reason: "all 3 expectations met" });
    const body = server.requests[0]?.body;
    expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-test");
    expect(body?.model).toBe("gpt-4.1-mini");
    expect(body?.temperature).toBe(0);
    expect((body?.response_format as { type?: string } | undefined)?.type).toBe("json_schema");
  });

  it("reads JSON wrapped in prose with a single call", async () => {
    useOpenAI();
    server.enqueue(
      fake.text(
        `Here is my verdict:\n\`\`\`json\n${JSON.stringify(checks(true, true, false))}\n\`\`\`\nHope it helps.`,
      ),
    );
    const mark = await expectations("q", run, expected, "openai/gpt-4.1-mini");
    expect(mark.score).toBeCloseTo(2 / 3);
    expect(mark.reason).toContain('missed should not "invents an outage cause": reason 3');
    expect(server.requests).toHaveLength(1);
  });

  it("makes a second call when the first answer is truncated JSON, showing the judge its answer", async () => {
    useOpenAI();
    server.enqueue(
      fake.text('{"checks":[{"id":1,"met":true,"why":"ok"},{"id":2,"met":tr'),
      fake.json(checks(true, true, true)),
    );
    const mark = await expectations("q", run, expected, "openai/gpt-4.1-mini");
    expect(mark.score).toBe(1);
    expect(server.requests).toHaveLength(2);
    const repair = server.requests[1]?.body.messages as { role: string; content: string }[];
    expect(repair.at(-2)).toEqual({
      role: "assistant",
      content: '{"checks":[{"id":1,"met":true,"why":"ok"},{"id":2,"met":tr',
    });
    expect(repair.at(-1)?.content).toContain("not valid JSON");
  });

  it("repairs a wrong number of checks instead of trusting it", async () => {
    useOpenAI();
    server.enqueue(fake.json(checks(true, true)), fake.json(checks(false, true, true)));
    const mark = await expectations("q", run, expected, "openai/gpt-4.1-mini");
    expect(mark.score).toBeCloseTo(2 / 3);
    expect(
      (server.requests[1]?.body.messages as { content: string }[] | undefined)?.at(-1)?.content,
    ).toContain("judged 2 requirements but there are 3");
  });

  it("says a wrong number of checks with nouns and verbs that agree with it", () => {
    const check = { met: true, why: "ok" };
    expect(checkChecks({ checks: [check] }, 2)).toEqual({
      ok: false,
      problem: "it judged 1 requirement but there are 2; give exactly one check per requirement",
    });
    expect(checkChecks({ checks: [check, check] }, 1)).toEqual({
      ok: false,
      problem: "it judged 2 requirements but there is 1; give exactly one check per requirement",
    });
  });

  it('never counts the string "false" as met', async () => {
    useOpenAI();
    server.enqueue(fake.json(checks(true, "false", true)), fake.json(checks(true, false, true)));
    const mark = await expectations("q", run, expected, "openai/gpt-4.1-mini");
    expect(mark.score).toBeCloseTo(2 / 3);
    expect(server.requests).toHaveLength(2);
  });

  it("is unavailable (malformed) when the answer stays wrong after the repair turn: two calls, no score", async () => {
    useOpenAI();
    server.enqueue(fake.json(checks(true, "yes", true)), fake.json(checks(true)));
    const error = await expectations("q", run, expected, "openai/gpt-4.1-mini").catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(JudgeUnavailableError);
    expect((error as JudgeUnavailableError).kind).toBe("malformed");
    expect((error as Error).message).toContain('"met" must be a JSON boolean');
    expect(server.requests).toHaveLength(2);
  });

  it("is unavailable (failed) with the reason when every try fails, after retrying", async () => {
    useOpenAI();
    server.enqueue(fake.serverError(), fake.serverError(), fake.serverError(), fake.serverError());
    const error = await expectations("q", run, expected, "openai/gpt-4.1-mini").catch(
      (e: unknown) => e,
    );
    expect((error as JudgeUnavailableError).kind).toBe("failed");
    expect((error as Error).message).toMatch(
      /HTTP 500: fake server error \(gave up after 4 tries\)/,
    );
  });

  it("sends the whole model string to NICEEVAL_JUDGE_BASE_URL with NICEEVAL_JUDGE_API_KEY", async () => {
    process.env.NICEEVAL_JUDGE_BASE_URL = server.openaiBaseURL;
    process.env.NICEEVAL_JUDGE_API_KEY = "sk-test";
    process.env.ANTHROPIC_API_KEY = "should-not-be-used";
    server.enqueue(fake.json(checks(true, true, true)));
    await expectations("q", run, expected, "anthropic/claude-haiku-4.5");
    expect(server.requests[0]?.protocol).toBe("openai");
    expect(server.requests[0]?.body.model).toBe("anthropic/claude-haiku-4.5");
  });

  it("answers a repeated run from the disk cache without calling the model", async () => {
    useOpenAI();
    server.enqueue(fake.json(checks(true, false, true)));
    const first = await expectations("q", run, expected, "openai/gpt-4.1-mini");
    const { result: second, usage } = await withJudgeLedger(() =>
      expectations("q", run, expected, "openai/gpt-4.1-mini"),
    );
    expect(second).toEqual(first);
    expect(server.requests).toHaveLength(1);
    expect(usage).toMatchObject({ calls: 0, cachedCalls: 1, inputTokens: 0, latencyMs: 0 });
  });
});
