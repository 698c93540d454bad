import { afterEach, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../eval/record.js";
import { defineSuite } from "../eval/suite.js";
import { createScorer } from "../scorers/create-scorer.js";
import { runEvals } from "./run.js";

const same = createScorer<string, string>({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});

afterEach(() => {
  process.setUncaughtExceptionCaptureCallback(null);
});

/** A suite whose "capture" case installs a capture callback and leaves it. */
const capturing = () =>
  defineSuite<string, string>({
    id: "capturing",
    concurrency: 1,
    cases: [
      { id: "capture", input: "capture", expected: "capture" },
      { id: "after", input: "after", expected: "after" },
    ],
    target: (input) => {
      if (input === "capture") process.setUncaughtExceptionCaptureCallback(() => {});
      return input;
    },
    scorers: [same],
  });

describe("an uncaught-exception capture callback left by an attempt", () => {
  it("is removed after the attempt, which is errored naming it", async () => {
    const records: AttemptRecord[] = [];
    await runEvals([{ eval: capturing() }], { onRecord: (r) => records.push(r) });
    expect(records.map((r) => `${r.caseId}:${r.verdict}`)).toEqual([
      "capture:errored",
      "after:passed",
    ]);
    expect(records[0]?.error?.message).toContain("process.setUncaughtExceptionCaptureCallback");
    expect(process.hasUncaughtExceptionCaptureCallback()).toBe(false);
  });

  it("is left alone when the host had one as the run started", async () => {
    const host = () => {};
    process.setUncaughtExceptionCaptureCallback(host);
    const suite = defineSuite<string, string>({
      id: "hosted",
      cases: [{ id: "one", input: "a", expected: "a" }],
      target: (input) => input,
      scorers: [same],
    });
    const records: AttemptRecord[] = [];
    await runEvals([{ eval: suite }], { onRecord: (r) => records.push(r) });
    expect(records.map((r) => r.verdict)).toEqual(["passed"]);
    expect(process.hasUncaughtExceptionCaptureCallback()).toBe(true);
  });
});
