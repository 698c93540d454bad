import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeLlmServer, fake, startFakeLlmServer } from "../support/fake-llm-server.js";
import { judgeEnv } from "../support/judged-fixture.js";
import { type FixtureRun, runFixture } from "./run-fixture.js";

// A Vitest file that mocks its agent's model with vi.stubGlobal("fetch", …) in a beforeEach: the
// judge's calls went to the stub too, so the agent's mock graded the agent. The Vitest faces hold
// the fetch there was as they registered their tests, before any hook ran, for the judges.
describe("evaluate() and toVitest under a fetch stubbed in beforeEach, under real Vitest", () => {
  let server: FakeLlmServer;
  let run: FixtureRun;
  beforeAll(async () => {
    server = await startFakeLlmServer({
      respond: () => fake.json({ value: 1, rationale: "the real judge" }),
    });
    const saved = { ...process.env };
    Object.assign(process.env, judgeEnv(server));
    try {
      run = await runFixture("vitest-items", ["stubbed-fetch"]);
    } finally {
      for (const key of Object.keys(judgeEnv(server))) {
        if (saved[key] === undefined) delete process.env[key];
        else process.env[key] = saved[key];
      }
    }
  }, 60_000);
  afterAll(() => server.close());

  it("asks the judge's endpoint, not the stub", () => {
    expect(run.fileMessages).toEqual([]);
    expect(run.test("evaluate with a stubbed fetch", "one").status).toBe("passed");
    const toVitestCase = run.tests.find((t) =>
      t.ancestorTitles.includes("toVitest with a stubbed fetch"),
    );
    expect(toVitestCase?.status).toBe("passed");
    expect(server.requests.length).toBe(2);
  });
});
