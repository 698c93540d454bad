import { beforeAll, describe, expect, it } from "vitest";
import { type FixtureRun, runFixture } from "./run-fixture.js";

// A task that holds the thread past its limit cannot be stopped in process: its limit's timer
// fires only once it yields. It must still be failed as timed out once it returns, so niceeval's
// meta and summary agree with Vitest, which fails the test for its duration.
describe("a task that blocks the event loop past its limit, under real Vitest", () => {
  let run: FixtureRun;
  beforeAll(async () => {
    run = await runFixture("vitest-items", ["blocking"]);
  }, 60_000);

  it("fails the item as timed out, saying it held the thread", () => {
    const held = run.test("blocking task", "held");
    expect(held.status).toBe("failed");
    expect(held.failureMessages[0]).toContain(
      'evaluate "blocking task", item "held": the task timed out after 270 ms (the test\'s timeout, 300 ms, less 30 ms for niceeval to report it): the attempt held the thread past the limit, to ',
    );
    expect(held.failureMessages[0]).toContain(
      "so it could not be stopped earlier (synchronous code cannot be timed out: a limit stops only code that yields); make it yield (await between its steps), raise the timeout or make it faster",
    );
  });

  it("gives the item the meta and summary of a timed-out item, not a pass", () => {
    expect(run.test("blocking task", "held").meta.niceeval).toMatchObject({
      item: "held",
      passed: false,
      score: null,
      timedOut: true,
    });
    expect(run.stdout).toContain(
      'niceeval evaluate "blocking task": 0/1 items passed (mean score >= 1); no item scored; 1 item not scored (task failed: 1)',
    );
  });

  it("fails a toVitest target that blocks after an await the same way", () => {
    const held = run.test("blocking target", "held");
    expect(held.status).toBe("failed");
    expect(held.failureMessages[0]).toContain(
      'target of case "held" in eval "blocking target": the target timed out after 270 ms (the test\'s timeout, 300 ms, less 30 ms for niceeval to report it): the attempt held the thread past the limit',
    );
  });

  it("fails an item whose scorer blocks after an await as that scorer timed out", () => {
    const held = run.test("blocking scorer", "held");
    expect(held.status).toBe("failed");
    expect(held.failureMessages[0]).toContain(
      'slow: errored (scorer "slow" timed out after 270 ms (the test\'s timeout, 300 ms, less 30 ms for niceeval to report it): the attempt held the thread past the limit, to ',
    );
    expect(held.meta.niceeval).toMatchObject({
      passed: false,
      scores: [
        { name: "match", score: 1 },
        { name: "slow", score: null },
      ],
    });
  });

  it("blames only a scorer whose synchronous start held the thread, not one done before it", () => {
    const held = run.test("blocking sync scorer", "held");
    expect(held.status).toBe("failed");
    expect(held.failureMessages[0]).toContain(
      'blocker: errored (scorer "blocker" timed out after 270 ms (the test\'s timeout, 300 ms, less 30 ms for niceeval to report it): the attempt held the thread past the limit, to ',
    );
    expect(held.failureMessages[0]).not.toContain("match: errored");
    expect(held.meta.niceeval).toMatchObject({
      passed: false,
      scores: [
        { name: "match", score: 1 },
        { name: "blocker", score: null },
      ],
    });
  });

  it("fails items side by side that ended past their test's timeout, blaming neither", () => {
    for (const item of ["blocker", "quick"]) {
      const test = run.test("blocking beside", item);
      expect(test.status).toBe("failed");
      // niceeval's failure, not Vitest's bare "Test timed out", and no claim it held the thread.
      expect(test.failureMessages[0]).toContain(
        `evaluate "blocking beside", item "${item}": the task and its scorers ended at `,
      );
      expect(test.failureMessages[0]).toContain(
        "past the test's timeout (300 ms), which fails the test whatever held the thread: the thread was held past niceeval's limit (270 ms) while other cases or items ran beside this one, and which of them held it is not known in one process",
      );
      expect(test.meta.niceeval).toMatchObject({
        item,
        passed: false,
        score: null,
        timedOut: true,
      });
    }
  });
});
