import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeLlmServer, fake, startFakeLlmServer } from "../support/fake-llm-server.js";
import { type FixtureRun, runFixture } from "./run-fixture.js";

// A task that leaves fetch, fake timers or a judge variable replaced once its test ended (and its
// afterEach hooks ran) silently changed every later eval in the file: their tasks saw the mock,
// their timers never fired. The Vitest faces put back what an earlier case left, before the next
// case runs, and say which eval, case and global.
describe("globals an evaluate item or a toVitest case leaves replaced, under real Vitest", () => {
  let server: FakeLlmServer;
  let run: FixtureRun;
  let output: string;
  beforeAll(async () => {
    server = await startFakeLlmServer({
      apiKey: "key-from-setup",
      respond: () => fake.json({ value: 1, rationale: "the real judge" }),
    });
    run = await runFixture("vitest-env", ["leaks"], { FIXTURE_JUDGE_URL: server.openaiBaseURL });
    output = `${run.stdout}\n${run.stderr}`;
  }, 60_000);
  afterAll(() => server.close());

  it("judges the leaking cases themselves with the real judge", () => {
    expect(run.fileMessages).toEqual([]);
    expect(run.test("leaves fetch", "one").failureMessages).toEqual([]);
    expect(run.test("leaves an SDK's variable", "one").failureMessages).toEqual([]);
    const timers = run.tests.find((t) => t.ancestorTitles.includes("leaves fake timers"));
    expect(timers?.failureMessages).toEqual([]);
  });

  it("runs a later eval's task with the originals put back", () => {
    const after = run.test("runs after", "one");
    expect(after.failureMessages).toEqual([]);
    expect(after.status).toBe("passed");
  });

  it("names the eval, the case and each global it left", () => {
    expect(output).toContain(
      'niceeval: evaluate "leaves fetch", item "one" left fetch replaced after its test ended (its afterEach hooks included); niceeval put it back before toVitest("leaves fake timers"), case "one" ran.',
    );
    expect(output).toMatch(
      /niceeval: toVitest\("leaves fake timers"\), case "one" left [^\n]*setTimeout[^\n]*Date[^\n]* replaced after its test ended/,
    );
    expect(output).toContain("vi.useRealTimers()");
    expect(output).toContain(
      `niceeval: evaluate "leaves an SDK's variable", item "one" left process.env.OPENAI_BASE_URL set and process.env.NICEEVAL_JUDGE_API_KEY removed after its test ended`,
    );
  });

  it("leaves alone what the test's hooks put in place or take away", () => {
    for (const name of ["one", "two"]) {
      expect(run.test("stubs in its task, unstubbed after", name).status).toBe("passed");
      expect(run.test("faked by a beforeEach, never put back", name).status).toBe("passed");
    }
    for (const name of ["one", "two"]) {
      expect(run.test("mocks fetch while it waits", name).status).toBe("passed");
      expect(run.test("stubs fetch and leaves it to Vitest", name).status).toBe("passed");
    }
    const cases = run.tests.filter((t) => t.ancestorTitles.includes("faked by its beforeEach"));
    expect(cases.map((t) => t.status)).toEqual(["passed", "passed"]);
    expect(output.match(/niceeval: .* left /g)?.length).toBe(3);
  });
});

// A file under fake timers from its top level, whose task takes them down: Node's own timers are
// what it leaves, never a leak to undo (undoing it would put back the fakes of a clock gone).
describe("real timers a task brings back in a file faked from its top level, under real Vitest", () => {
  let run: FixtureRun;
  beforeAll(async () => {
    run = await runFixture("vitest-env", ["faked-file"]);
  }, 60_000);

  it("leaves them in place and says nothing", () => {
    expect(run.fileMessages).toEqual([]);
    expect(run.test("takes the fake timers down", "one").status).toBe("passed");
    const after = run.test("runs after the real timers came back", "one");
    expect(after.failureMessages).toEqual([]);
    expect(`${run.stdout}\n${run.stderr}`).not.toContain("niceeval: ");
  });
});
