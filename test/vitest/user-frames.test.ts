import { beforeAll, describe, expect, it } from "vitest";
import { type FixtureRun, runFixture } from "./run-fixture.js";

/** The `    at …` lines of a failure as Vitest's JSON report gives it. */
const framesOf = (message: string | undefined) =>
  (message ?? "").split("\n").filter((line) => /^\s+at /.test(line));

// A failure that is the user's doing points at the user's line, as a throwing scorer's does: the
// factory that threw, or the evaluate / toVitest call that was given what it cannot run.
describe("failure traces of evaluate() and toVitest point at the user's code", () => {
  let run: FixtureRun;
  beforeAll(async () => {
    run = await runFixture("vitest-items", ["user-frames"]);
  }, 60_000);

  it("says where a createScorer config factory threw, and its trace starts there", () => {
    const [message] = run.test("factory throws", "later item").failureMessages;
    expect(message).toMatch(
      /createScorer\("fact"\): the config factory threw: fact client failed \(build 2\) \(at buildFactScorer \(.*user-frames\.spec\.ts:\d+:\d+\)\)/,
    );
    expect(framesOf(message)[0]).toMatch(/at buildFactScorer \(.*user-frames\.spec\.ts:\d+:\d+\)/);
  });

  it.each([
    ["invalid item", "no input", "item 1 is an object without an `input` field"],
    ["empty data", "data", "`data` gave no items"],
    ["duplicate ids", "twin", 'case id "twin" appears twice'],
  ])("points %s at the call that was given it", (describe, title, says) => {
    // Of two tests named alike (the duplicate ids), the second is the one that fails.
    const [message] =
      run.tests
        .filter((test) => test.ancestorTitles.at(-1) === describe && test.title === title)
        .at(-1)?.failureMessages ?? [];
    expect(message).toContain(says);
    const frames = framesOf(message);
    expect(frames.length).toBeGreaterThan(0);
    expect(frames[0]).toMatch(/user-frames\.spec\.ts:\d+:\d+/);
    expect(frames.join("\n")).not.toMatch(/[\\/](dist|src)[\\/](vitest|eval)[\\/]/);
  });
});
