import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, readJsonRecords, runCli } from "../support/project.js";

// An attempt that installs an uncaught-exception capture callback and leaves it: it would swallow
// every later uncaught error (and bypass niceeval's own handling of them), so it is removed after
// the attempt, which is errored naming it, and a later attempt's uncaught error is seen again.
const captureSuite = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});

export const capturing = defineSuite({
  id: "capturing",
  concurrency: 1,
  cases: [
    { id: "before", input: "a", expected: "a" },
    { id: "captures", input: "capture", expected: "capture" },
    { id: "throws-later", input: "throw", expected: "throw" },
    { id: "last", input: "c", expected: "c" },
  ],
  target: async (input) => {
    if (input === "capture") process.setUncaughtExceptionCaptureCallback(() => {});
    if (input === "throw")
      setTimeout(() => { throw new Error("thrown by throws-later"); }, 0);
    await new Promise((resolve) => setTimeout(resolve, 50));
    return input;
  },
  scorers: [same],
});
`;

// The host's own callback, set before the run started (an eval file's top-level code): kept.
const hostSuite = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

process.setUncaughtExceptionCaptureCallback(() => {});

const same = createScorer({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});

export const hosted = defineSuite({
  id: "hosted",
  concurrency: 1,
  cases: [
    { id: "one", input: "a", expected: "a" },
    { id: "two", input: "b", expected: "b" },
  ],
  target: async (input) => {
    if (!process.hasUncaughtExceptionCaptureCallback()) throw new Error("the host's callback is gone");
    return input;
  },
  scorers: [same],
});
`;

// Set for the attempt's own work, awaited, and removed in a finally, as the advice says: each
// attempt keeps its callback until it removes it, and none is errored.
const tidySuite = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});

export const tidy = defineSuite({
  id: "tidy",
  concurrency: 1,
  cases: [
    { id: "one", input: "a", expected: "a" },
    { id: "two", input: "b", expected: "b" },
  ],
  target: async (input) => {
    process.setUncaughtExceptionCaptureCallback(() => {});
    try {
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (!process.hasUncaughtExceptionCaptureCallback()) throw new Error("my callback is gone");
      return input;
    } finally {
      process.setUncaughtExceptionCaptureCallback(null);
    }
  },
  scorers: [same],
});
`;

interface Report {
  summary: { runErrors?: string[] };
}

const modes = [[], ["--no-supervise"]] as const;

describe("an attempt that leaves an uncaught-exception capture callback installed (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({
      "evals/capturing.eval.js": captureSuite,
      "host/hosted.eval.js": hostSuite,
      "tidy/tidy.eval.js": tidySuite,
    });
  });
  afterAll(() => project.cleanup());

  for (const mode of modes) {
    const label = mode.length ? ` (${mode[0]})` : "";
    it(`errors it naming the callback, removes it, and sees later uncaught errors${label}`, async () => {
      const json = `capture${mode.length}.json`;
      const run = await runCli(
        ["run", "evals", "--json", json, "--no-store", ...mode],
        project.dir,
      );
      const records = await readJsonRecords(project.dir, json);
      const verdicts = records.map((r) => `${r.caseId}:${r.verdict}`);
      expect(verdicts.slice(0, 2)).toEqual(["before:passed", "captures:errored"]);
      expect(verdicts[3]).toBe("last:passed");
      expect(records[1]?.error?.message).toMatch(
        /^the code under test set an uncaught-exception capture callback \(process\.setUncaughtExceptionCaptureCallback\) .*niceeval removed it/,
      );
      expect(records[1]?.error?.message).toContain(
        "process.setUncaughtExceptionCaptureCallback(null)",
      );
      // The later attempt's uncaught error is no longer swallowed: the eval process errors that
      // attempt with it; in the CLI's own process it is an error outside any case.
      if (mode.length) {
        const report = JSON.parse(await readFile(join(project.dir, json), "utf8")) as Report;
        expect(report.summary.runErrors?.join("\n")).toContain("thrown by throws-later");
      } else {
        expect(verdicts[2]).toBe("throws-later:errored");
        expect(records[2]?.error?.message).toContain("thrown by throws-later");
      }
      expect(run.code).toBe(1);
    }, 60_000);

    it(`keeps a callback the attempt sets, awaits with, and removes in a finally${label}`, async () => {
      const json = `tidy${mode.length}.json`;
      const run = await runCli(["run", "tidy", "--json", json, "--no-store", ...mode], project.dir);
      const records = await readJsonRecords(project.dir, json);
      expect(records.map((r) => `${r.caseId}:${r.verdict}:${r.error?.message ?? ""}`)).toEqual([
        "one:passed:",
        "two:passed:",
      ]);
      expect(run.code).toBe(0);
    }, 60_000);

    it(`keeps a callback the host set before the run started${label}`, async () => {
      const json = `host${mode.length}.json`;
      const run = await runCli(["run", "host", "--json", json, "--no-store", ...mode], project.dir);
      const records = await readJsonRecords(project.dir, json);
      expect(records.map((r) => `${r.caseId}:${r.verdict}`)).toEqual(["one:passed", "two:passed"]);
      expect(run.code).toBe(0);
    }, 60_000);
  }
});
