import { describe, expect, it } from "vitest";
import { createScorer } from "../scorers/create-scorer.js";
import { evaluate } from "./evaluate.js";

const perfect = createScorer<string, string>({ name: "perfect", score: () => ({ score: 1 }) });
const valid = {
  data: [{ input: "a" }],
  task: ({ input }: { input: string }) => input,
  scorers: [perfect],
};

// Wrong options are programmer errors: evaluate throws before registering anything.
describe("evaluate options", () => {
  it.each([
    ["no scorers", { ...valid, scorers: [] }, "`scorers` must be a non-empty array"],
    [
      "a scorer that is neither a function nor a bound scorer",
      { ...valid, scorers: [{ name: "exact", score: 1 }] },
      "scorers[0] is not a scorer; build it with createScorer, wrapScorer or bindScorer, or pass a function returning { name, score }",
    ],
    [
      "an unknown aggregation",
      { ...valid, aggregation: "max" },
      "`aggregation` must be one of mean, median, sum, got max",
    ],
    [
      "a NaN threshold",
      { ...valid, threshold: Number.NaN },
      "`threshold` must be a finite number, got NaN",
    ],
    [
      "a zero timeout",
      { ...valid, timeout: 0 },
      "`timeout` must be a whole number of milliseconds from 1 to 2147482647, got 0",
    ],
    [
      "an infinite timeout",
      { ...valid, timeout: Number.POSITIVE_INFINITY },
      "`timeout` must be a whole number of milliseconds from 1 to 2147482647, got Infinity",
    ],
    [
      "a timeout at the timer maximum, past the bound of every timeout given from code",
      { ...valid, timeout: 2_147_483_647 },
      "`timeout` must be a whole number of milliseconds from 1 to 2147482647, got 2147483647",
    ],
    [
      "a timeout past the timer maximum",
      { ...valid, timeout: 3_000_000_000 },
      "`timeout` must be a whole number of milliseconds from 1 to 2147482647, got 3000000000",
    ],
    [
      "a misspelt key",
      { ...valid, treshold: 0.1 },
      'unknown key "treshold" (did you mean "threshold"?); known keys: data, task, scorers, aggregation, threshold, timeout',
    ],
    ["no task", { ...valid, task: undefined }, "`task` must be a function"],
    [
      "data that is not a list",
      { ...valid, data: "items.json" },
      "`data` must be an array of items or a function returning one",
    ],
  ])("rejects %s", (_, options, message) => {
    expect(() => evaluate("bad", options as never)).toThrow(`evaluate "bad": ${message}`);
  });

  it("rejects an empty name", () => {
    expect(() => evaluate("", valid)).toThrow("evaluate: `name` must be a non-empty string");
  });
});
