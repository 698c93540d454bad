import { beforeAll, describe, expect, it } from "vitest";
import { type FixtureRun, runFixture } from "./run-fixture.js";

// niceeval holds an item to its limit itself, a little before Vitest's own test timeout, so a
// timed-out item still says what timed out, gets its meta and counts in the summary.
describe("timeouts of evaluate() and toVitest under real Vitest", () => {
  let run: FixtureRun;
  beforeAll(async () => {
    run = await runFixture("vitest-items", ["timeouts"]);
  }, 60_000);

  it("fails a slow task naming the task and the limit, not Vitest's timeout", () => {
    const slow = run.test("slow task", "slow");
    expect(slow.status).toBe("failed");
    expect(slow.failureMessages[0]).toContain(
      'evaluate "slow task", item "slow": the task timed out after 180 ms (the test\'s timeout, 200 ms, less 20 ms for niceeval to report it)',
    );
    expect(run.stdout + run.stderr).not.toContain("Test timed out in");
  });

  it("fails a slow scorer naming it, with the limit taken from testTimeout", () => {
    const [message] = run.test("slow scorer", "slow").failureMessages;
    expect(message).toContain(
      'slow-judge: errored (scorer "slow-judge" timed out after 360 ms (the test\'s timeout, 400 ms, less 40 ms for niceeval to report it)',
    );
    expect(message).toContain("  perfect: 1");
  });

  it("fails a slow toVitest target the same way", () => {
    const [message] = run.test("toVitest slow target", "slow").failureMessages;
    expect(message).toContain(
      'target of case "slow" in eval "toVitest slow target": the target timed out after 180 ms',
    );
  });

  it("aborts the signal of the task, of a factory scorer's context and of the target", () => {
    expect(
      run.test("after the timeouts", "aborted the task, the scorer and the target at the limit")
        .status,
    ).toBe("passed");
  });

  it("gives a timed-out item its meta and counts it in the summary", () => {
    expect(run.test("slow task", "slow").meta.niceeval).toMatchObject({
      item: "slow",
      passed: false,
      score: null,
      timedOut: true,
    });
    expect(run.test("slow scorer", "slow").meta.niceeval).toMatchObject({
      passed: false,
      scores: [
        { name: "perfect", score: 1 },
        { name: "slow-judge", score: null },
      ],
    });
    expect(run.stdout).toContain(
      'niceeval evaluate "slow task": 0/1 items passed (mean score >= 1); no item scored; 1 item not scored (task failed: 1)',
    );
    expect(run.stdout).toContain('niceeval evaluate "slow scorer": 0/1 items passed');
  });
});
