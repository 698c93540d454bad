import { describe, expect, it } from "vitest";
import { malformedVerdictScore, parseVerdict } from "./verdict.js";

describe("parseVerdict", () => {
  it("returns a validated verdict, keeping only the known fields", () => {
    expect(parseVerdict({ value: 0.8 })).toEqual({ value: 0.8 });
    expect(parseVerdict({ value: 1, passed: false, rationale: "non", extra: 1 })).toEqual({
      value: 1,
      passed: false,
      rationale: "non",
    });
  });

  it("accepts a JSON string holding a verdict", () => {
    expect(parseVerdict('{"value":0.25,"rationale":"bof"}')).toEqual({
      value: 0.25,
      rationale: "bof",
    });
  });

  it("returns null for malformed verdicts", () => {
    const malformed: unknown[] = [
      undefined,
      null,
      0.5,
      "not json",
      "{}",
      {},
      { value: Number.NaN },
      { value: Number.POSITIVE_INFINITY },
      { value: -0.1 },
      { value: 1.5 },
      { value: "0.5" },
      { value: 0.5, passed: "yes" },
      { value: 0.5, rationale: 3 },
    ];
    for (const raw of malformed) expect(parseVerdict(raw)).toBeNull();
  });
});

describe("malformedVerdictScore", () => {
  it("fails with value 0, errored (the judge's fault, never the output's), and shows the raw answer, NaN included", () => {
    const score = malformedVerdictScore("x", { value: Number.NaN });
    expect(score).toMatchObject({ value: 0, passed: false, errored: true, label: "x" });
    expect(score.rationale).toContain("value: NaN");
    expect(score.rationale).toContain("the judge must return");
  });
});
