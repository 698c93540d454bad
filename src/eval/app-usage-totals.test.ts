import { describe, expect, it } from "vitest";
import {
  type AppUsageTotals,
  addAppUsage,
  addAppUsageTotals,
  emptyAppUsageTotals,
} from "./app-usage-totals.js";
import { type AppUsage, type NumericEvidence, unreportedUsage } from "./record.js";

const n = (value: number): NumericEvidence => ({ state: "available", value });
const none: NumericEvidence = { state: "unavailable", reason: "usage-unreported: never reported" };
const usage = (over: Partial<AppUsage>): AppUsage => ({
  inputTokens: none,
  outputTokens: none,
  totalTokens: none,
  costUsd: none,
  ...over,
});
const full = usage({
  inputTokens: n(2000),
  outputTokens: n(1000),
  totalTokens: n(3000),
  costUsd: n(0.25),
});

describe("addAppUsage", () => {
  it("sums what attempts reported and counts them", () => {
    const totals = addAppUsage(addAppUsage(emptyAppUsageTotals(), full), full);
    expect(totals).toEqual({
      reported: 2,
      unreported: 0,
      inputTokens: 4000,
      outputTokens: 2000,
      totalTokens: 6000,
      costUsd: 0.5,
    });
  });

  it("counts an attempt that reported nothing as unreported, in no sum (never a zero)", () => {
    const totals = emptyAppUsageTotals();
    addAppUsage(totals, unreportedUsage());
    // An attempt whose create failed: unavailable with a reason of its own.
    addAppUsage(totals, unreportedUsage("usage-unreported: create failed"));
    expect(totals).toEqual({ reported: 0, unreported: 2 });
    addAppUsage(totals, full);
    expect(totals).toMatchObject({ reported: 1, unreported: 2, costUsd: 0.25 });
  });

  it("says how many reporting attempts a field's sum leaves out", () => {
    const totals = emptyAppUsageTotals();
    addAppUsage(totals, full);
    addAppUsage(totals, usage({ costUsd: n(0.1) }));
    expect(totals).toEqual({
      reported: 2,
      unreported: 0,
      inputTokens: 2000,
      outputTokens: 1000,
      totalTokens: 3000,
      costUsd: 0.35,
      missing: { inputTokens: 1, outputTokens: 1, totalTokens: 1 },
    });
  });

  it("has no sum for a field no attempt reported", () => {
    const totals = addAppUsage(emptyAppUsageTotals(), usage({ costUsd: n(0) }));
    expect(totals).toEqual({
      reported: 1,
      unreported: 0,
      costUsd: 0,
      missing: { inputTokens: 1, outputTokens: 1, totalTokens: 1 },
    });
  });
});

describe("addAppUsageTotals", () => {
  it("gives a run's totals from its evals' as folding every attempt would", () => {
    const attempts = [full, unreportedUsage(), usage({ inputTokens: n(5), outputTokens: n(6) })];
    const whole = emptyAppUsageTotals();
    for (const a of attempts) addAppUsage(whole, a);
    const first = addAppUsage(emptyAppUsageTotals(), attempts[0]!);
    const rest = emptyAppUsageTotals();
    for (const a of attempts.slice(1)) addAppUsage(rest, a);
    const run: AppUsageTotals = emptyAppUsageTotals();
    addAppUsageTotals(run, first);
    addAppUsageTotals(run, rest);
    // An eval summary stored by an older niceeval has none.
    addAppUsageTotals(run, undefined);
    expect(run).toEqual(whole);
    expect(run).toEqual({
      reported: 2,
      unreported: 1,
      inputTokens: 2005,
      outputTokens: 1006,
      totalTokens: 3000,
      costUsd: 0.25,
      missing: { totalTokens: 1, costUsd: 1 },
    });
  });
});
