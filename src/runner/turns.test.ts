import { describe, expect, it } from "vitest";
import { defineSuite } from "../eval/suite.js";
import { createScorer } from "../scorers/create-scorer.js";
import { runEvals } from "./run.js";
import { eventLoopTurns } from "./turns.js";

const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until) {}
};

describe("event loop turns", () => {
  it("asks for a turn only after its slice, and one turn serves every caller", async () => {
    const turns = eventLoopTurns(5);
    expect(turns.due()).toBeUndefined();
    busy(6);
    const first = turns.due();
    expect(first).toBeInstanceOf(Promise);
    expect(turns.due()).toBe(first);
    await first;
    expect(turns.due()).toBeUndefined();
  });

  it("lets timers fire while synchronous attempts run", async () => {
    // 60 synchronous attempts of 2 ms each: without turns, no timer fires before the run ends.
    // The timer is set by the first attempt, so a slow start of the run cannot fire it early.
    let fired = false;
    const suite = defineSuite<number, number>({
      id: "sync",
      cases: Array.from({ length: 60 }, (_, i) => ({ input: i, expected: i })),
      target: (i) => {
        if (i === 0) {
          setTimeout(() => {
            fired = true;
          }, 0);
        }
        busy(2);
        return i;
      },
      scorers: [createScorer({ name: "same", score: () => ({ score: 1 }) })],
    });
    const seenAt: boolean[] = [];
    await runEvals([{ eval: suite }], {
      concurrency: 4,
      reporters: [{ onCaseFinished: () => void seenAt.push(fired) }],
    });
    expect(seenAt).toHaveLength(60);
    // The timer fired during the run, not after it.
    expect(seenAt.indexOf(true)).toBeGreaterThan(0);
    expect(seenAt.indexOf(true)).toBeLessThan(40);
  });
});
