import { beforeAll, describe, expect, it } from "vitest";
import { type FixtureRun, runFixture } from "./run-fixture.js";

// Vitest runs a failing test again with --retry; the summary counts each item once, as its
// last try went.
describe("evaluate() under vitest run --retry", () => {
  let run: FixtureRun;
  beforeAll(async () => {
    run = await runFixture("vitest-items", ["retries", "--retry=2"]);
  }, 60_000);

  it("counts each item once in the summary, by its last try", () => {
    expect(run.test("retried", "wrong").status).toBe("failed");
    expect(run.test("retried", "flaky").status).toBe("passed");
    expect(run.stdout).toContain(
      'niceeval evaluate "retried": 2/3 items passed (mean score >= 1); mean item score 0.667 (n=3)',
    );
  });

  it("follows Vitest's verdict on the last try, with that try's error", () => {
    const fixed = run.test("retried verdicts", "soft then fixed");
    expect(fixed.status).toBe("passed");
    expect(fixed.meta.niceeval).toMatchObject({ passed: true, score: 1 });
    const soft = run.test("retried verdicts", "wrong then soft");
    expect(soft.status).toBe("failed");
    expect(soft.meta.niceeval).toMatchObject({
      passed: false,
      score: 1,
      testError: expect.stringMatching(
        /^AssertionError: a later try's check: expected 3 to be -1 \/\//,
      ),
    });
    expect(run.stdout).toContain(
      'niceeval evaluate "retried verdicts": 1/2 items passed (mean score >= 1); mean item score 1 (n=2); 1 item reached the threshold but its test failed in Vitest, so it does not pass',
    );
  });
});
