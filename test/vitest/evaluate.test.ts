import { beforeAll, describe, expect, it } from "vitest";
import { type FixtureRun, runFixture } from "./run-fixture.js";

describe("niceeval/vitest evaluate() under real Vitest", () => {
  describe("passing fixture", () => {
    let run: FixtureRun;
    beforeAll(async () => {
      run = await runFixture("vitest-pass");
    }, 60_000);

    it("registers one passing test per data item and exits 0", () => {
      expect(run.fileMessages).toEqual([]);
      expect(run.numFailedTests).toBe(0);
      expect(run.numPassedTests).toBe(11);
      expect(run.exitCode).toBe(0);
    });

    it("runs the seed-003 correctAnswer scorer inside evaluate", () => {
      const france = run.test("capitals", "1. France");
      expect(france.status).toBe("passed");
      expect(france.meta.niceeval).toEqual({
        item: "1. France",
        passed: true,
        score: 1,
        scores: [{ name: "correct-answer", score: 1 }],
      });
    });

    it("loads async data once and hands extra item fields to the task and the scorers", () => {
      const spain = run.test("async data and extra fields", "spain");
      expect(spain.status).toBe("passed");
      expect(spain.meta.niceeval).toMatchObject({
        scores: [
          { name: "correct-answer", score: 1 },
          { name: "within-limit", score: 1, metadata: { input: "Spain" } },
        ],
      });
      expect(run.test("async data and extra fields", "italy").status).toBe("passed");
    });

    it("counts a null score as 0 and aggregates by mean, median or sum", () => {
      expect(run.test("mean with a null score", "1. hello").meta.niceeval).toMatchObject({
        score: 0.5,
      });
      expect(run.test("median", "1. abcd").meta.niceeval).toMatchObject({ score: 0.5 });
      expect(run.test("sum over scorers", "1. abcd").meta.niceeval).toMatchObject({ score: 2 });
    });

    it("keeps items that share a name apart, each with its own extra fields", () => {
      expect(run.test("same names", "twin").status).toBe("passed");
      expect(run.test("same names", "twin (2)").status).toBe("passed");
    });

    it("scores with a bindScorer tool scorer through the same engine", () => {
      expect(run.test("tool scorer", "1. Spain").meta.niceeval).toMatchObject({
        passed: true,
        scores: [{ name: "exact", score: 1 }],
      });
    });

    it("runs a wrapScorer scorer under the inner name and resolves a config factory per run", () => {
      expect(run.test("wrapped scorer and config factory", "spain").meta.niceeval).toMatchObject({
        passed: true,
        scores: [
          { name: "correct-answer", score: 1 },
          { name: "saw-runtime", score: 1, metadata: { signal: true, model: false } },
        ],
      });
    });

    it("prints one overall line per evaluation with its sample size", () => {
      expect(run.stdout).toContain(
        'niceeval evaluate "capitals": 2/2 items passed (mean score >= 1); mean item score 1 (n=2)',
      );
      expect(run.stdout).toContain(
        'niceeval evaluate "mean with a null score": 1/1 items passed (mean score >= 0.5); mean item score 0.5 (n=1)',
      );
    });
  });

  describe("failing fixture", () => {
    let run: FixtureRun;
    beforeAll(async () => {
      run = await runFixture("vitest-fail");
    }, 60_000);

    it("fails only the items that miss the gate and exits non-zero", () => {
      expect(run.exitCode).not.toBe(0);
      expect(run.numPassedTests).toBe(2);
      expect(run.numFailedTests).toBe(9);
      expect(run.test("below threshold", "right").status).toBe("passed");
    });

    it("names the aggregate, the threshold and every scorer's score", () => {
      const [message] = run.test("below threshold", "wrong").failureMessages;
      expect(message).toContain(
        'evaluate "below threshold", item "wrong": mean score 0.25 < threshold 0.75\n  correct-answer: 0\n  always-half: 0.5',
      );
    });

    it("fails an item whose scorer returns a non-finite score, even above the threshold", () => {
      const nan = run.test("broken scorers", "nan");
      expect(nan.status).toBe("failed");
      // not-a-number and bare-number error on this item.
      expect(nan.failureMessages[0]).toContain("2 scorers errored, which fails the item");
      expect(nan.failureMessages[0]).toContain(
        'not-a-number: errored (scorer "not-a-number" returned a non-finite score (NaN)',
      );
      expect(nan.failureMessages[0]).toContain("  perfect: 1\n");
    });

    it("tells a scorer that returned a bare number to return { score }", () => {
      expect(run.test("broken scorers", "nan").failureMessages[0]).toContain(
        'bare-number: errored (scorer "bare-number" returned the bare number 0.8; return { score: 0.8 } instead of 0.8)',
      );
    });

    it("fails an item whose scorer throws, naming the scorer and its error", () => {
      const [message] = run.test("broken scorers", "throws").failureMessages;
      expect(message).toMatch(
        /throwing: errored \(scorer "throwing" threw: scorer exploded \(at score \(.*evaluate\.test\.ts:\d+:\d+\)\)\)/,
      );
    });

    it("fails an item whose task throws with the task's error", () => {
      const [message] = run.test("task throws", "boom").failureMessages;
      expect(message).toContain(
        'evaluate "task throws", item "boom": the task failed: the model is down',
      );
    });

    it("turns bad data into one failing test instead of breaking the file", () => {
      expect(run.test("data throws", "data").failureMessages[0]).toContain(
        'evaluate "data throws": `data` threw: dataset file missing',
      );
      expect(run.test("no data", "data").failureMessages[0]).toContain(
        'evaluate "no data": `data` gave no items',
      );
      expect(run.test("item without input", "2. undefined").failureMessages[0]).toContain(
        'evaluate "item without input": item 2 is an object without an `input` field',
      );
      expect(run.test("item without input", "1. ok").status).toBe("passed");
      // `signal` is the task's AbortSignal: an item's own field of that name is refused, not lost.
      expect(run.test("item without input", "3. s").failureMessages[0]).toContain(
        'evaluate "item without input": item 3 has a field named `signal`, which the task receives as its AbortSignal; rename that field.',
      );
    });

    it("holds each item to its timeout, stopping it a little before Vitest would", () => {
      const slow = run.test("slow task", "slow");
      expect(slow.status).toBe("failed");
      expect(slow.failureMessages[0]).toContain("the task timed out after 180 ms");
      expect(run.stdout + run.stderr).not.toContain("Test timed out in 200ms");
    });
  });
});
