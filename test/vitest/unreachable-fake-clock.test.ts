import { beforeAll, describe, expect, it } from "vitest";
import { type FixtureRun, runFixture } from "./run-fixture.js";

// The memory of an endpoint no call could reach ran on the global Date: marked while a test had
// set Vitest's clock to 2099, it kept the endpoint "down" for 73 years of the real clock (for the
// rest of the process), instead of 30 s.
describe("a judge endpoint found down under a faked clock, under real Vitest", () => {
  let run: FixtureRun;
  beforeAll(async () => {
    run = await runFixture("vitest-env", ["unreachable"]);
  }, 60_000);

  it("is unavailable while it is down", () => {
    expect(run.fileMessages).toEqual([]);
    const down = run.test("judged while down", "one");
    expect(down.status).toBe("failed");
    expect(down.failureMessages[0]).toContain("could not be reached");
  });

  it("is remembered as down for 30 s of the real clock, not until 2099", () => {
    const later = run.test("judged a moment later", "one");
    expect(later.status).toBe("failed");
    const seconds = /not tried again for (\d+) s/.exec(later.failureMessages[0] ?? "")?.[1];
    expect(Number(seconds)).toBeGreaterThan(0);
    expect(Number(seconds)).toBeLessThanOrEqual(30);
  });
});
