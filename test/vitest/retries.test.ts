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
});
