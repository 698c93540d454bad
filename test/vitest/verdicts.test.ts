import { beforeAll, describe, expect, it } from "vitest";
import { type FixtureRun, runFixture } from "./run-fixture.js";

// README: an item's meta and the summary agree with Vitest. An item that fails before niceeval
// judges it, or whose test Vitest fails for a reason of its own, never reads as passed.
describe("evaluate() items as Vitest judged their tests", () => {
  let run: FixtureRun;
  beforeAll(async () => {
    run = await runFixture("vitest-items", ["verdicts"]);
  }, 60_000);

  it("counts an invalid item in the summary, not scored, and gives it its meta", () => {
    expect(run.test("bad items", "fine").status).toBe("passed");
    const misspelt = run.test("bad items", "misspelt");
    expect(misspelt.status).toBe("failed");
    expect(misspelt.meta.niceeval).toEqual({
      item: "misspelt",
      passed: false,
      score: null,
      scores: [],
      itemError:
        'evaluate "bad items": item 2 is an object without an `input` field; every item needs an `input`.',
    });
    const signal = run.test("bad items", "signal field");
    expect(signal.status).toBe("failed");
    expect(signal.meta.niceeval).toMatchObject({
      passed: false,
      score: null,
      itemError: expect.stringContaining("item 3 has a field named `signal`"),
    });
    expect(run.stdout).toContain(
      'niceeval evaluate "bad items": 1/3 items passed (mean score >= 1); mean item score 1 (n=1); 2 items not scored (invalid item: 2)',
    );
  });

  it("does not pass an item whose test an expect.soft in the task failed, and says why", () => {
    const failed = run.test("soft expect in the task", "soft fails");
    expect(failed.status).toBe("failed");
    expect(failed.meta.niceeval).toMatchObject({
      passed: false,
      score: 1,
      scores: [{ name: "exact-answer", score: 1 }],
      testError: expect.stringMatching(
        /^AssertionError: the task's own check: expected 'France' to be 'Spain'/,
      ),
    });
    expect(run.test("soft expect in the task", "soft holds").meta.niceeval).toMatchObject({
      passed: true,
    });
    expect(run.stdout).toContain(
      'niceeval evaluate "soft expect in the task": 1/2 items passed (mean score >= 1); mean item score 1 (n=2); 1 item reached the threshold but its test failed in Vitest, so it does not pass',
    );
  });

  it("does the same for an expect.soft in a scorer and a failing afterEach hook", () => {
    const scorer = run.test("soft expect in a scorer", "soft in scorer");
    expect(scorer.status).toBe("failed");
    expect(scorer.meta.niceeval).toMatchObject({
      passed: false,
      score: 1,
      testError: expect.stringMatching(/^AssertionError: expected 'Paris' to be 'Lisbon'/),
    });
    const hook = run.test("failing afterEach", "hook fails");
    expect(hook.status).toBe("failed");
    expect(hook.meta.niceeval).toMatchObject({
      passed: false,
      score: 1,
      testError: "Error: the afterEach hook failed",
    });
    expect(run.stdout).toContain(
      'niceeval evaluate "failing afterEach": 0/1 items passed (mean score >= 1); mean item score 1 (n=1); 1 item reached the threshold but its test failed in Vitest, so it does not pass',
    );
  });

  it("agrees with Vitest's count", () => {
    expect(run.numFailedTests).toBe(5);
    expect(run.numPassedTests).toBe(2);
  });
});
