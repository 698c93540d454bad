import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeLlmServer, fake, startFakeLlmServer } from "../support/fake-llm-server.js";
import { type FixtureRun, runFixture } from "./run-fixture.js";

// vi.useFakeTimers() in a beforeEach is the test's own business: niceeval's judge retries back
// off on the real clock (a Retry-After sleep on a fake timer would never end), and an item that
// hangs is still failed by niceeval's limit, not by Vitest's bare timeout.
describe("judges and limits of evaluate() under fake timers from a beforeEach, under real Vitest", () => {
  let server: FakeLlmServer;
  let run: FixtureRun;
  beforeAll(async () => {
    server = await startFakeLlmServer({
      apiKey: "key-from-setup",
      answers: [
        {
          kind: "status",
          status: 429,
          message: "slow down",
          headers: { "retry-after-ms": "50", "retry-after": "1" },
        },
      ],
      respond: () => fake.json({ value: 1, rationale: "the real judge" }),
    });
    run = await runFixture("vitest-env", ["fake-timers"], {
      FIXTURE_JUDGE_URL: server.openaiBaseURL,
    });
  }, 60_000);
  afterAll(() => server.close());

  it("waits out a 429's Retry-After and judges on the next try", () => {
    expect(run.fileMessages).toEqual([]);
    const item = run.test("judged after a 429", "one");
    expect(item.failureMessages).toEqual([]);
    expect(item.status).toBe("passed");
    expect(server.requests.length).toBe(2);
  });

  it("fails an item that hangs as timed out by niceeval", () => {
    const item = run.test("hangs", "one");
    expect(item.status).toBe("failed");
    expect(item.failureMessages[0]).toContain("the task timed out after 270 ms");
    expect(item.meta.niceeval).toMatchObject({ passed: false, timedOut: true });
  });
});
