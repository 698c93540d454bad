import { describe, expect, it } from "vitest";
import { defineAdapter } from "../adapter/define-adapter.js";
import type { AttemptRecord } from "../eval/record.js";
import { defineSuite } from "../eval/suite.js";
import { atLeast } from "../expect/compare.js";
import { createScorer } from "../scorers/create-scorer.js";
import { runEvals } from "./run.js";
import { runEval } from "./run-eval.js";

const never = <T>() => new Promise<T>(() => {});
const same = createScorer<string, string>({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});
const hang = createScorer<string, string>({ name: "hang", score: () => never() });

/** A suite of one case whose target, or scorer, ignores its signal and never settles. */
const hanging = (part: "target" | "scorer") =>
  defineSuite<string, string>({
    id: `ignores-${part}`,
    cases: [{ id: "a", input: "ok", expected: "ok" }],
    target: part === "target" ? () => never() : async (input) => input,
    scorers: [part === "scorer" ? hang : same],
  });

/** Abort with a reason once the attempt has started. */
function abortSoon(): AbortSignal {
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error("service shutting down")), 50);
  return controller.signal;
}

function expectInterrupted(message: string | undefined): void {
  expect(message).toContain("interrupted: the run's signal was aborted (service shutting down)");
  expect(message).toContain("make the target, adapter or scorer stop when its `signal` aborts");
  expect(message).not.toContain("raise the timeoutMs");
}

// Code under test that ignores its signal cannot keep a run waiting for its time limit (here a
// minute, past the test's own timeout): after the grace, its attempt is given up on.
describe("aborting the run's signal in process, code under test ignoring it", () => {
  for (const part of ["target", "scorer"] as const) {
    it(`ends runEvals after the grace, the ${part}'s attempt errored as interrupted`, async () => {
      const records: AttemptRecord[] = [];
      const summary = await runEvals([{ eval: hanging(part) }], {
        signal: abortSoon(),
        timeoutMs: 60_000,
        abortGraceMs: 100,
        onRecord: (record) => records.push(record),
      });
      expect(summary.cancelled).toBe(true);
      expect(records).toHaveLength(1);
      expect(records[0]!.verdict).toBe("errored");
      expect(records[0]!.error?.interrupted).toBe(true);
      expectInterrupted(records[0]!.error?.message);
    }, 15_000);
  }

  it("ends runEvals after the default grace", async () => {
    const records: AttemptRecord[] = [];
    await runEvals([{ eval: hanging("target") }], {
      signal: abortSoon(),
      timeoutMs: 60_000,
      onRecord: (record) => records.push(record),
    });
    expect(records[0]?.error?.message).toContain("did not finish within 2000 ms of it");
  }, 15_000);

  it("ends runEval after the grace, without a limit too", async () => {
    const result = await runEval(hanging("target"), { signal: abortSoon(), abortGraceMs: 100 });
    expect(result.cancelled).toBe(true);
    expect(result.cases[0]?.verdict).toBe("errored");
    expectInterrupted(result.cases[0]?.record.error?.message);
  }, 15_000);

  it("ends a score eval's run after the grace, its adapter's create ignoring the signal", async () => {
    const adapter = defineAdapter({
      name: "hangs",
      create: () => never<{ n: { state: "available"; value: number } }>(),
      assertions: () => ({}),
    });
    const review = adapter.defineScoreEval({
      description: "never created",
      test(t) {
        t.check(t.n, atLeast(1)).gate().label("n");
      },
    });
    const record = await review.run({ signal: abortSoon(), timeoutMs: 60_000, abortGraceMs: 100 });
    expect(record.verdict).toBe("errored");
    expect(record.error?.interrupted).toBe(true);
    expectInterrupted(record.error?.message);
  }, 15_000);

  it("refuses an abortGraceMs that is not a whole number of ms", async () => {
    await expect(runEvals([{ eval: hanging("target") }], { abortGraceMs: -1 })).rejects.toThrow(
      "abortGraceMs must be a whole number of milliseconds",
    );
  });
});
