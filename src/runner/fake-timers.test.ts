import { afterEach, describe, expect, it, vi } from "vitest";
import type { AttemptRecord } from "../eval/record.js";
import { defineSuite } from "../eval/suite.js";
import { createScorer } from "../scorers/create-scorer.js";
import type { EvalEvent } from "./events.js";
import { runEvals } from "./run.js";
import { telemetrySink } from "./telemetry-sink.js";

const ran = createScorer({ name: "ran", score: () => ({ score: 1 }) });

// Code that calls runEvals may fake the global timers (vi.useFakeTimers()); the runner's own
// timers are the real ones (src/clock.ts), so its limits fire all the same.
describe("the runner under vi.useFakeTimers()", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("errors an attempt that never settles at the last-resort limit", async () => {
    const never = defineSuite<number, number>({
      id: "never",
      cases: [{ id: "a", input: 1 }],
      target: () => new Promise<never>(() => {}),
      scorers: [ran],
    });
    vi.useFakeTimers();
    const records: AttemptRecord[] = [];
    await runEvals([{ eval: never }], { caseTimeoutMs: 100, onRecord: (r) => records.push(r) });
    expect(records.map((r) => r.verdict)).toEqual(["errored"]);
    expect(records[0]?.error?.message).toContain(
      "the attempt did not settle within the last-resort limit of 100 ms",
    );
  }, 5000);

  it("ends the wait for telemetry that never delivers", async () => {
    const sink = telemetrySink(
      "r",
      [
        {
          emit: (event: EvalEvent) =>
            event.kind === "eval.finished" ? new Promise(() => {}) : undefined,
        },
      ],
      50,
    );
    vi.useFakeTimers();
    sink.onEvalFinished?.({ evalId: "e" } as never);
    await expect(sink.onRunFinished?.({} as never)).rejects.toThrow(
      "1 telemetry event was still not delivered 0.05 s after the run ended",
    );
  }, 5000);
});
