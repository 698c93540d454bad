import { describe, expect, it } from "vitest";
import { stoppedWords } from "./stopped.js";
import { runSummary } from "./test-support/runs.js";

const totals = (interrupted: number) => ({
  ...runSummary().totals,
  cases: 19,
  passed: 11,
  errored: interrupted,
  interrupted,
});

describe("stoppedWords", () => {
  it("counts the attempts cut off and those that did not start, when every case was read", () => {
    expect(stoppedWords({ totals: totals(8), stopped: { notStarted: 21, unread: [] } })).toBe(
      "8 attempts cut off by the stop (errored, left out of the pass rate) · 21 attempts did not start",
    );
  });

  it("says the count is a floor when cases were left unread, naming their evals", () => {
    expect(stoppedWords({ totals: totals(1), stopped: { notStarted: 13, unread: ["qa"] } })).toBe(
      '1 attempt cut off by the stop (errored, left out of the pass rate) · 13 attempts did not start, nor did the cases of eval "qa" not yet read',
    );
    expect(
      stoppedWords({
        totals: totals(0),
        stopped: { notStarted: 0, unread: ["a", "b", "c", "d", "e"] },
      }),
    ).toBe('the cases of evals "a", "b", "c" and 2 more not yet read did not run');
    expect(
      stoppedWords({ totals: totals(0), stopped: { notStarted: 0, unread: ["a", "b"] } }),
    ).toBe('the cases of evals "a" and "b" not yet read did not run');
  });

  it("counts a continuation's errored attempts the stop came before it ran them again", () => {
    expect(
      stoppedWords({ totals: totals(8), stopped: { notStarted: 0, unread: [], notRunAgain: 7 } }),
    ).toBe(
      "8 attempts cut off by the stop (errored, left out of the pass rate) · 7 errored attempts not run again (they keep their stored error)",
    );
    expect(
      stoppedWords({ totals: totals(0), stopped: { notStarted: 2, unread: [], notRunAgain: 1 } }),
    ).toBe(
      "2 attempts did not start · 1 errored attempt not run again (it keeps its stored error)",
    );
  });

  it("says attempts an earlier stop cut off, not run again, once: among those not run again", () => {
    const stopped = { notStarted: 0, unread: [], notRunAgain: 5, earlierCut: 5 };
    expect(stoppedWords({ totals: totals(5), stopped })).toBe(
      "5 errored attempts not run again (they keep their stored error)",
    );
    // Two cut off by this stop besides them.
    expect(stoppedWords({ totals: totals(7), stopped })).toBe(
      "2 attempts cut off by the stop (errored, left out of the pass rate) · 5 errored attempts not run again (they keep their stored error)",
    );
  });

  it("says when nothing was left unstarted", () => {
    expect(stoppedWords({ totals: totals(2), stopped: { notStarted: 0, unread: [] } })).toBe(
      "2 attempts cut off by the stop (errored, left out of the pass rate) · every attempt had started",
    );
    // Stopped while the eval files loaded: no eval, no case.
    const none = { ...runSummary().totals };
    expect(stoppedWords({ totals: none, stopped: { notStarted: 0, unread: [] } })).toBe(
      "no case ran",
    );
  });

  it("tells the attempts the stop came before they started (a queue job no worker took) from those it cut off", () => {
    const stopped = { notStarted: 0, unread: [], beforeStart: 6 };
    expect(stoppedWords({ totals: totals(6), stopped })).toBe(
      "6 attempts stopped before they started (errored, left out of the pass rate)",
    );
    expect(stoppedWords({ totals: totals(8), stopped: { ...stopped, notStarted: 3 } })).toBe(
      "2 attempts cut off by the stop and 6 stopped before they started (errored, left out of the pass rate) · 3 attempts did not start",
    );
  });

  it("does not count what a summary read back from a store does not know", () => {
    expect(stoppedWords({ totals: totals(8) })).toBe(
      "8 attempts cut off by the stop (errored, left out of the pass rate) · cases that had not started did not run",
    );
  });
});
