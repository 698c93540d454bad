import { beforeAll, describe, expect, it } from "vitest";
import { type FixtureRun, runFixture } from "./run-fixture.js";

// Code under test may fake the timers (vi.useFakeTimers()); niceeval's limits run on the real
// ones (src/clock.ts), so a task that never settles is still failed by niceeval, with its meta
// and summary, not by Vitest's bare "Test timed out".
describe("a task that never settles under vi.useFakeTimers(), under real Vitest", () => {
  let run: FixtureRun;
  beforeAll(async () => {
    run = await runFixture("vitest-items", ["fake-timers"]);
  }, 60_000);

  it("fails the evaluate item as timed out by niceeval, with its meta and summary", () => {
    const hang = run.test("faked hang", "hang");
    expect(hang.status).toBe("failed");
    expect(hang.failureMessages[0]).toContain(
      'evaluate "faked hang", item "hang": the task timed out after 270 ms (the test\'s timeout, 300 ms, less 30 ms for niceeval to report it)',
    );
    expect(hang.meta.niceeval).toMatchObject({ item: "hang", passed: false, timedOut: true });
    expect(run.stdout).toContain('niceeval evaluate "faked hang": 0/1 items passed');
  });

  it("fails a toVitest target as timed out by niceeval", () => {
    const hang = run.tests.find((t) => t.ancestorTitles.includes("faked target"));
    expect(hang?.status).toBe("failed");
    expect(hang?.failureMessages[0]).toContain(
      'target of case "hang" in eval "faked target": the target timed out after 270 ms',
    );
  });
});
