import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeLlmServer, fake, startFakeLlmServer } from "../support/fake-llm-server.js";
import { type FixtureRun, runFixture } from "./run-fixture.js";

// evaluate's summary line and each item's meta say what its judge calls took (calls, cache hits,
// tokens), as the summary of a run does: a Vitest evaluation's judge cost is not left unshown.
describe("the judge usage of an evaluate() under real Vitest", () => {
  let server: FakeLlmServer;
  let run: FixtureRun;
  beforeAll(async () => {
    server = await startFakeLlmServer({
      apiKey: "key-from-setup",
      respond: () => fake.json({ value: 0.9, rationale: "helpful" }),
    });
    run = await runFixture("vitest-env", ["judge-usage"], {
      FIXTURE_JUDGE_URL: server.openaiBaseURL,
    });
  }, 60_000);
  afterAll(() => server.close());

  it("is in the summary line and in each item's meta", () => {
    expect(run.fileMessages).toEqual([]);
    expect(server.requests).toHaveLength(2);
    expect(run.stdout).toMatch(
      /niceeval evaluate "judged usage": 2\/2 items passed \(mean score >= 0\.5\); mean item score 0\.9 \(n=2\); judge: 2 calls, 0 cached, \d+ in \/ \d+ out tokens/,
    );
    expect(run.test("judged usage", "one").meta.niceeval).toMatchObject({
      judge: { calls: 1, cachedCalls: 0 },
    });
  });
});
