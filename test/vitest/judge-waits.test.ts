import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeLlmServer, fake, startFakeLlmServer } from "../support/fake-llm-server.js";
import { type FixtureRun, runFixture } from "./run-fixture.js";

// A judged scorer cut off by an item's limit while its judge call was in flight: the face put the
// test's timeout in the message but dropped which judge, endpoint and try it was waiting on, and
// said "make it faster" to a scorer that was only waiting.
describe("a judge call in flight at an item's limit, under real Vitest", () => {
  let server: FakeLlmServer;
  let run: FixtureRun;
  beforeAll(async () => {
    server = await startFakeLlmServer({ apiKey: "key-from-setup", respond: () => fake.hang() });
    run = await runFixture("vitest-env", ["judge-hangs", "--pool=threads"], {
      FIXTURE_JUDGE_URL: server.openaiBaseURL,
    });
  }, 60_000);
  afterAll(() => server.close());

  it("names the judge, its endpoint and the try, in the test's words", () => {
    expect(run.fileMessages).toEqual([]);
    const endpoint = `${server.openaiBaseURL}`;
    for (const message of [
      run.test("judge hangs", "one").failureMessages[0],
      run.tests.find((t) => t.ancestorTitles.includes("judge hangs too"))?.failureMessages[0],
    ]) {
      expect(message).toContain(
        `scorer "helpful" timed out after 900 ms (the test's timeout, 1000 ms, less 100 ms for niceeval to report it) while judge "openai/judge" at ${endpoint}`,
      );
      expect(message).toContain("was still waiting for the answer to try 1 of");
      expect(message).toContain("raise the test's timeout");
      expect(message).not.toContain("make it faster");
      expect(message).not.toContain("nextTick");
    }
  });

  it("says that a faked process.nextTick keeps the judge's fetch from answering", () => {
    const message = run.test("judged under faked ticks", "one").failureMessages[0];
    expect(message).toContain('scorer "helpful" timed out after 900 ms');
    expect(message).toMatch(
      /(process\.nextTick|queueMicrotask)(, queueMicrotask)? (was|were) faked \(vi\.useFakeTimers with (it|them) in `toFake`\) while the judge waited, and Node's fetch, which judges call, does not answer without (it|them)/,
    );
  });
});
