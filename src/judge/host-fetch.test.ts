// The fetch judges call: the one the run found while a run goes on, and outside a run the global
// as it is now (a test that stubs fetch for a judge it calls directly), not what an earlier run
// of the process found.
import { afterEach, describe, expect, it } from "vitest";
import { defineSuite } from "../eval/suite.js";
import { runEvals } from "../runner/run.js";
import { createScorer } from "../scorers/create-scorer.js";
import { hostFetch } from "./host-fetch.js";

const real = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = real;
});

describe("hostFetch", () => {
  it("is the run's fetch while it goes on, and the global as it is once it ended", async () => {
    const mock = (async () => new Response("the target's mock")) as typeof fetch;
    let seenInRun: typeof fetch | undefined;
    const suite = defineSuite<number, number>({
      id: "mocks",
      cases: [{ id: "a", input: 1 }],
      target: (input) => {
        globalThis.fetch = mock;
        try {
          seenInRun = hostFetch();
        } finally {
          globalThis.fetch = real;
        }
        return input;
      },
      scorers: [createScorer({ name: "one", score: () => ({ score: 1 }) })],
    });
    const summary = await runEvals([{ eval: suite }]);
    expect(summary.totals.passed).toBe(1);
    expect(seenInRun).toBe(real);

    const stub = (async () => new Response("a judge's stub")) as typeof fetch;
    globalThis.fetch = stub;
    expect(hostFetch()).toBe(stub);
  });
});
