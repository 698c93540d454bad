import { beforeAll, describe, expect, it } from "vitest";
import { type FixtureRun, runFixture } from "./run-fixture.js";

// What a failing item prints: niceeval's explanation, never an assertion on a boolean or a
// verdict with its diff; a task or target that threw keeps its own stack.
describe("failures of evaluate() and toVitest under real Vitest", () => {
  let run: FixtureRun;
  beforeAll(async () => {
    run = await runFixture("vitest-items", ["failures"]);
  }, 60_000);

  it("fails an evaluate item below the threshold with niceeval's explanation only", () => {
    const [message] = run.test("evaluate failures", "wrong").failureMessages;
    expect(message).toMatch(
      /^NiceevalError: evaluate "evaluate failures", item "wrong": mean score 0 < threshold 1\n {2}exact-answer: 0$/,
    );
    expect(run.stdout + run.stderr).not.toContain("expected false to be true");
    expect(run.stdout + run.stderr).not.toContain("- Expected");
  });

  it("fails a toVitest case with niceeval's explanation, not the verdict compared with 'passed'", () => {
    const [message] = run.test("toVitest failures", "wrong").failureMessages;
    expect(message).toMatch(
      /^NiceevalError: case "wrong" of "toVitest failures" failed\n {2}exact:/,
    );
    expect(run.stdout + run.stderr).not.toContain("to be 'passed'");
  });

  it("keeps the stack of a task or target that threw, and the error as the failure's cause", () => {
    for (const [describe, title] of [
      ["evaluate failures", "task throws"],
      ["toVitest failures", "target throws"],
    ] as const) {
      const [message] = run.test(describe, title).failureMessages;
      expect(message).toContain("the model is down (asked Spain)");
      expect(message).toMatch(/\n {4}at callModel \(.*failures\.spec\.ts:\d+:\d+\)/);
    }
    expect(run.stderr + run.stdout).toContain("Caused by: Error: the model is down (asked Spain)");
  });

  it("keeps the stack of a data function that threw, and its error as the failure's cause", () => {
    const [message] = run.test("throwing data", "data").failureMessages;
    expect(message).toMatch(
      /^NiceevalError: evaluate "throwing data": `data` threw: dataset download failed\. Fix the data function or pass an array\.\n {4}at downloadDataset \(.*failures\.spec\.ts:\d+:\d+\)/,
    );
    expect(run.stderr + run.stdout).toContain("Caused by: Error: dataset download failed");
  });

  it("says where a scorer threw, keeps its stack, and gives the failure its error as cause", () => {
    for (const describe of ["evaluate scorer failures", "toVitest scorer failures"]) {
      const [message] = run.test(describe, "scorer throws").failureMessages;
      expect(message).toMatch(
        /scorer "correct-answer" threw: TypeError: Cannot read properties of undefined \(reading 'toLowerCase'\) \(at lowerAnswer \(.*failures\.spec\.ts:\d+:\d+\)\)/,
      );
      expect(message).toMatch(/\n {4}at lowerAnswer \(.*failures\.spec\.ts:\d+:\d+\)/);
    }
    expect(run.stderr + run.stdout).toContain(
      "Caused by: TypeError: Cannot read properties of undefined (reading 'toLowerCase')",
    );
  });

  it("fails a task whose output's then throws with that error, not as timed out", () => {
    for (const describe of ["proxy output", "toVitest proxy output"]) {
      const [message] = run.test(describe, "throwing then").failureMessages;
      expect(message).toContain("lazy response has no field then");
      expect(message).not.toContain("timed out");
      expect(message).toMatch(/\n {4}at Object\.get \(.*failures\.spec\.ts:\d+:\d+\)/);
    }
  });
});
