// What an attempt may replace while it waits and put back before it ends (the clock and timers,
// fetch, an uncaught-exception capture callback: runner/globals.ts, runner/capture.ts) is held by
// it until it ends, in process, whether or not the run has a time limit; and an attempt cut off
// at its limit while it holds one is timed out, saying so, with the original put back for the
// attempts after it.
import FakeTimers from "@sinonjs/fake-timers";
import { describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/eval/record.js";
import { defineSuite } from "../../src/eval/suite.js";
import { runEvals } from "../../src/runner/run.js";
import { createScorer } from "../../src/scorers/create-scorer.js";
import { fakingSuite } from "../support/faking-suite.js";

const same = createScorer<string, string>({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});

const verdicts = (records: readonly AttemptRecord[]) =>
  records.map((r) => `${r.caseId}:${r.verdict}:${r.error?.message ?? ""}`).sort();

async function run(
  suite: ReturnType<typeof defineSuite<string, string>>,
  onCaseFinished: (record: AttemptRecord) => void,
  timeoutMs: number | undefined,
): Promise<AttemptRecord[]> {
  const records: AttemptRecord[] = [];
  await runEvals([{ eval: suite }], {
    concurrency: 3,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    onRecord: (record) => records.push(record),
    reporters: [{ label: "others", onCaseFinished }],
  });
  return records;
}

/**
 * Cases b and c end while case "holds" has what `hold` set in place (set in its synchronous
 * part, undone in a finally); once they are reported, `check` says whether it still is.
 */
function holdingSuite(hold: () => () => void, check: () => Promise<string>) {
  let set!: () => void;
  const inPlace = new Promise<void>((resolve) => {
    set = resolve;
  });
  let othersReported!: () => void;
  const reported = new Promise<void>((resolve) => {
    othersReported = resolve;
  });
  let seen = 0;
  const suite = defineSuite<string, string>({
    id: "holding",
    cases: ["b", "c", "holds"].map((id) => ({ id, input: id, expected: id })),
    target: async (input) => {
      if (input !== "holds") {
        await inPlace;
        return input;
      }
      const undo = hold();
      try {
        set();
        await reported;
        return await check();
      } finally {
        undo();
      }
    },
    scorers: [same],
  });
  const othersEnded = (record: AttemptRecord) => {
    if (record.caseId !== "holds" && ++seen === 2) othersReported();
  };
  return { suite, othersEnded };
}

/** A fetch mock, whose answer is "holds". */
const mockingSuite = () => {
  const real = globalThis.fetch;
  return holdingSuite(
    () => {
      globalThis.fetch = async () => new Response("holds");
      return () => {
        globalThis.fetch = real;
      };
    },
    async () => (await fetch("http://127.0.0.1:9/model")).text(),
  );
};

/** An uncaught-exception capture callback. */
const capturingSuite = () =>
  holdingSuite(
    () => {
      process.setUncaughtExceptionCaptureCallback(() => {});
      return () => process.setUncaughtExceptionCaptureCallback(null);
    },
    async () => (process.hasUncaughtExceptionCaptureCallback() ? "holds" : "my callback is gone"),
  );

const allPassed = ["b:passed:", "c:passed:", "fakes:passed:"];

describe("an attempt that holds a global while others end", () => {
  for (const timeoutMs of [undefined, 60_000]) {
    const label = timeoutMs === undefined ? "without a time limit" : "with a time limit";

    it(`keeps its fake timers, and no other attempt is errored for them (${label})`, async () => {
      const { suite, othersEnded } = fakingSuite([
        "setTimeout",
        "clearTimeout",
        "setInterval",
        "clearInterval",
        "Date",
      ]);
      expect(verdicts(await run(suite, othersEnded, timeoutMs))).toEqual(allPassed);
    });

    it(`keeps its fetch mock, and no other attempt is errored for it (${label})`, async () => {
      const real = globalThis.fetch;
      const { suite, othersEnded } = mockingSuite();
      expect(verdicts(await run(suite, othersEnded, timeoutMs))).toEqual([
        "b:passed:",
        "c:passed:",
        "holds:passed:",
      ]);
      expect(globalThis.fetch).toBe(real);
    });

    it(`keeps its capture callback, and no other attempt is errored for it (${label})`, async () => {
      const { suite, othersEnded } = capturingSuite();
      expect(verdicts(await run(suite, othersEnded, timeoutMs))).toEqual([
        "b:passed:",
        "c:passed:",
        "holds:passed:",
      ]);
      expect(process.hasUncaughtExceptionCaptureCallback()).toBe(false);
    });
  }
});

describe("an attempt cut off at its time limit while it holds a global", () => {
  /** Case "hangs" replaces a global as `install` does and never ends; "after" reports what it sees. */
  function hangingSuite(install: () => () => void, seen: () => string) {
    return defineSuite<string, string>({
      id: "hanging",
      concurrency: 1,
      cases: [
        { id: "hangs", input: "hangs", expected: "hangs" },
        { id: "after", input: "after", expected: "the originals" },
      ],
      target: async (input) => {
        if (input !== "hangs") return seen();
        const uninstall = install();
        try {
          await new Promise(() => {});
          return input;
        } finally {
          uninstall();
        }
      },
      scorers: [same],
    });
  }

  async function cutOff(suite: ReturnType<typeof hangingSuite>): Promise<AttemptRecord[]> {
    const records: AttemptRecord[] = [];
    await runEvals([{ eval: suite }], {
      timeoutMs: 100,
      onRecord: (record) => records.push(record),
    });
    return records.sort((a, b) => a.caseId.localeCompare(b.caseId));
  }

  it("is timed out (not told to put fetch back in a finally), and the next attempt has the real fetch", async () => {
    const real = globalThis.fetch;
    const suite = hangingSuite(
      () => {
        globalThis.fetch = async () => new Response("mock");
        return () => {
          globalThis.fetch = real;
        };
      },
      () => (globalThis.fetch === real ? "the originals" : "the mock"),
    );
    const [after, hangs] = await cutOff(suite);
    expect(after?.verdict).toBe("passed");
    expect(hangs?.verdict).toBe("errored");
    expect(hangs?.error?.where).toBe('target of case "hangs" in eval "hanging"');
    expect(hangs?.error?.message).toMatch(/^the target timed out after 100 ms/);
    expect(hangs?.error?.message).toContain(
      "it still held fetch as it was cut off (its code had not put it back): niceeval put the original back for the attempts after it",
    );
    expect(hangs?.error?.message).not.toContain("in a `finally`");
    expect(globalThis.fetch).toBe(real);
  });

  it("is timed out with fake timers installed, and the next attempt has the real clock", async () => {
    const realTimeout = globalThis.setTimeout;
    const suite = hangingSuite(
      () => {
        const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date"] });
        return () => clock.uninstall();
      },
      () =>
        globalThis.setTimeout === realTimeout && Date.now() > 1_000_000 ? "the originals" : "fakes",
    );
    const [after, hangs] = await cutOff(suite);
    expect(after?.verdict).toBe("passed");
    expect(hangs?.error?.message).toMatch(/^the target timed out after 100 ms/);
    expect(hangs?.error?.message).toContain("it still held setTimeout, Date as it was cut off");
    expect(hangs?.error?.message).not.toContain("Fake timers must be uninstalled");
  });
});
