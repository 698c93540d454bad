import { describe, expect, it } from "vitest";
import { checkRunId, isoDateTime } from "./run-fields.js";

describe("isoDateTime", () => {
  it.each([
    ["2025-01-31T09:30:00.000Z", "2025-01-31T09:30:00.000Z"],
    ["2025-01-31T09:30Z", "2025-01-31T09:30:00.000Z"],
    ["2025-01-31T10:30:00+01:00", "2025-01-31T09:30:00.000Z"],
    ["2025-01-01T00:30:00+01:00", "2024-12-31T23:30:00.000Z"],
    ["2025-01-31T09:30:00.123456Z", "2025-01-31T09:30:00.123Z"],
    ["2025-01-31T09:30:00,5Z", "2025-01-31T09:30:00.500Z"],
    ["2024-02-29T00:00:00Z", "2024-02-29T00:00:00.000Z"],
    ["0050-01-01T00:00:00Z", "0050-01-01T00:00:00.000Z"],
  ])("takes %s as %s", (given, stored) => {
    expect(isoDateTime(given, "x")).toBe(stored);
  });

  it.each([
    "not a date",
    "",
    "2025-01-31",
    "2025-01-31T09:30:00",
    "2025-01-31 09:30:00Z",
    "2023-02-29T00:00:00Z",
    "2025-01-31T24:00:00Z",
    "2025-01-31T09:60:00Z",
    "2025-01-31T09:30:60Z",
    "2025-01-31T09:30:00+24:00",
    "9999-12-31T23:59:59-01:00",
    1738315800000,
    null,
  ])("refuses %o, naming the field", (given) => {
    expect(() => isoDateTime(given, "beginRun: manifest.startedAt")).toThrow(
      /^beginRun: manifest\.startedAt must be an ISO 8601 date-time with a time zone, such as "2025-01-31T09:30:00\.000Z" \(new Date\(\)\.toISOString\(\)\), got /,
    );
  });
});

describe("checkRunId", () => {
  it.each([
    ["", "an empty string"],
    ["  ", '"  "'],
    [7, "7"],
    [undefined, "undefined"],
  ])("refuses %o", (given, shown) => {
    expect(() => checkRunId(given, "runEvals: options.runId", "do this")).toThrow(
      `runEvals: options.runId must be a non-empty string naming the run, got ${shown}; do this`,
    );
  });

  it("takes any other string", () => {
    expect(() => checkRunId("run 1", "x", "y")).not.toThrow();
  });
});
