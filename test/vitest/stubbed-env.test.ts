import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeLlmServer, fake, startFakeLlmServer } from "../support/fake-llm-server.js";
import { type FixtureRun, runFixture } from "./run-fixture.js";

// A Vitest file that stubs its app's model variables (OPENAI_*, ANTHROPIC_*, even NICEEVAL_JUDGE_*)
// in a beforeEach: the judges followed them. They read the environment as it was when the evals
// registered their tests, which vitest.config's `env` and setup files had set.
describe("judges of evaluate() and toVitest under env stubbed after registration, under real Vitest", () => {
  let server: FakeLlmServer;
  let run: FixtureRun;
  beforeAll(async () => {
    server = await startFakeLlmServer({
      apiKey: "key-from-setup",
      respond: () => fake.json({ value: 1, rationale: "the real judge" }),
    });
    run = await runFixture("vitest-env", ["stubbed-env", "set-late"], {
      FIXTURE_JUDGE_URL: server.openaiBaseURL,
    });
  }, 60_000);
  afterAll(() => server.close());

  it("asks the endpoint of vitest.config's env with the setup file's key, not the stubs", () => {
    expect(run.fileMessages).toEqual([]);
    expect(run.test("evaluate with a stubbed env", "one").status).toBe("passed");
    const toVitestCase = run.tests.find((t) =>
      t.ancestorTitles.includes("toVitest with a stubbed env"),
    );
    expect(toVitestCase?.failureMessages).toEqual([]);
    expect(toVitestCase?.status).toBe("passed");
  });

  it("does not follow a judge variable the task itself sets", () => {
    const item = run.test("evaluate setting the env in its task", "one");
    expect(item.failureMessages).toEqual([]);
    expect(item.status).toBe("passed");
    expect(server.requests.length).toBe(4);
    for (const request of server.requests)
      expect(request.headers.authorization).toBe("Bearer key-from-setup");
  });

  it("judges with a provider a hook registered", () => {
    const item = run.test("evaluate with a provider registered in a hook", "one");
    expect(item.failureMessages).toEqual([]);
    expect(item.status).toBe("passed");
  });

  it("says where to set an endpoint that a hook set after registration", () => {
    const item = run.test("evaluate with an endpoint set in a hook", "one");
    expect(item.status).toBe("failed");
    expect(item.failureMessages[0]).toContain('no judge provider for "judge"');
    expect(item.failureMessages[0]).toContain(
      'NICEEVAL_JUDGE_BASE_URL was set after evaluate "evaluate with an endpoint set in a hook" registered its tests',
    );
    expect(item.failureMessages[0]).toContain(
      "for an endpoint known only once a hook ran, call registerJudgeProvider there",
    );
  });

  it("says where to set a judge variable that a hook set after registration", () => {
    const item = run.test("evaluate with a judge set in a hook", "one");
    expect(item.status).toBe("failed");
    expect(item.failureMessages[0]).toContain("OPENAI_API_KEY is not set");
    expect(item.failureMessages[0]).toContain(
      'OPENAI_API_KEY was set after evaluate "evaluate with a judge set in a hook" registered its tests',
    );
  });
});
