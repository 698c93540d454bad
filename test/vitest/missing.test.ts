import { beforeAll, describe, expect, it } from "vitest";
import { type FixtureRun, runFixture } from "./run-fixture.js";

// niceeval's rule: missing evidence is reported as missing, never as a zero.
describe("evaluate() items whose scores are missing", () => {
  let run: FixtureRun;
  beforeAll(async () => {
    run = await runFixture("vitest-items", ["missing"]);
  }, 60_000);

  it("fails an item whose judge is unavailable, saying unavailable, with no score", () => {
    const judged = run.test("unavailable judge", "judged");
    expect(judged.status).toBe("failed");
    expect(judged.meta.niceeval).toMatchObject({ passed: false, score: null });
    const [message] = judged.failureMessages;
    expect(message).toContain(
      'evaluate "unavailable judge", item "judged": 1 score unavailable, which fails the item',
    );
    expect(message).toContain("  judged: unavailable (");
    expect(message).not.toContain("errored");
  });

  it("leaves an item with an unavailable score out of the mean and says how many", () => {
    expect(run.stdout).toContain(
      'niceeval evaluate "unavailable judge": 0/1 items passed (mean score >= 1); no item scored; 1 item not scored (score unavailable: 1)',
    );
  });

  it("gives an item with an errored scorer no score, so the summary's mean never contradicts it", () => {
    expect(run.test("errored scorer", "half broken").meta.niceeval).toMatchObject({
      passed: false,
      score: null,
    });
    expect(run.stdout).toContain(
      'niceeval evaluate "errored scorer": 1/2 items passed (mean score >= 1); mean item score 1 (n=1); 1 item not scored (scorer errored: 1)',
    );
  });
});
