import { beforeAll, describe, expect, it } from "vitest";
import { type FixtureRun, runFixture } from "./run-fixture.js";

// Seed 003's Scorer is a plain function returning { name, score, metadata? }: evaluate() takes
// one as it is, naming each score as the function does.
describe("evaluate() with plain scoring functions", () => {
  let run: FixtureRun;
  beforeAll(async () => {
    run = await runFixture("vitest-items", ["plain"]);
  }, 60_000);

  it("scores with plain functions under the names their scores carry", () => {
    expect(run.fileMessages).toEqual([]);
    expect(run.test("plain scorers", "paris").meta.niceeval).toEqual({
      item: "paris",
      passed: true,
      score: 1,
      scores: [
        { name: "exact-match", score: 1 },
        { name: "short", score: 1, metadata: { length: 5 } },
      ],
    });
    const [message] = run.test("plain scorers", "wrong").failureMessages;
    expect(message).toContain(
      'evaluate "plain scorers", item "wrong": mean score 0.5 < threshold 1\n  exact-match: 0\n  short: 1',
    );
  });

  it("fails an item whose plain scorer returns no name, saying to return one", () => {
    const [message] = run.test("nameless scorer", "one").failureMessages;
    expect(message).toContain(
      'scorer "nameless" returned a score without a `name`; a function in `scorers` names its score: return { name, score, metadata? }',
    );
  });

  it("tells a plain function that returned a bare number to return its score named", () => {
    const [message] = run.test("bare-number plain scorer", "one").failureMessages;
    expect(message).toContain(
      'similarity: errored (scorer "similarity" returned the bare number 0.8; a function in `scorers` names its score: return { name: "similarity", score: 0.8 } instead of 0.8)',
    );
  });
});
