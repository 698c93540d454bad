import { describe, expect, it } from "vitest";
import { FirstRuns } from "./first-runs.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function track(waitMs = 10_000) {
  const freed: string[] = [];
  let wakes = 0;
  const runs = new FirstRuns<string>(
    (slot) => freed.push(slot),
    () => wakes++,
    waitMs,
  );
  return { runs, freed, wakes: () => wakes };
}

describe("FirstRuns", () => {
  it("holds every start until the last first run ends, freeing each slot as its run ends", () => {
    const { runs, freed, wakes } = track();
    expect(runs.holding()).toBe(false);
    runs.add(["a", "b"]);
    expect(runs.holding()).toBe(true);
    expect(runs.ended("a")).toBe(true);
    expect(freed).toEqual(["a"]);
    expect(runs.holding()).toBe(true);
    expect(wakes()).toBe(0);
    expect(runs.ended("b")).toBe(true);
    expect(freed).toEqual(["a", "b"]);
    expect(runs.holding()).toBe(false);
    expect(runs.size).toBe(0);
    expect(wakes()).toBe(1);
  });

  it("tells an attempt that is not a first run (its record counts)", () => {
    const { runs, freed } = track();
    runs.add(["a"]);
    expect(runs.ended("other")).toBe(false);
    expect(freed).toEqual([]);
  });

  it("stops waiting for first runs that do not end, frees their slots once, and still knows them", async () => {
    const { runs, freed, wakes } = track(30);
    runs.add(["stuck", "late"]);
    await sleep(80);
    expect(runs.holding()).toBe(false);
    expect(freed).toEqual(["stuck", "late"]);
    expect(wakes()).toBe(1);
    // Still going: an error from outside any attempt may be theirs.
    expect(runs.size).toBe(2);
    expect(runs.ended("late")).toBe(true);
    expect(freed).toEqual(["stuck", "late"]);
    expect(runs.size).toBe(1);
  });
});
