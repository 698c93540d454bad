import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/eval/record.js";
import { openSqliteStore } from "../../src/store/index.js";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";

// Globals that JSON.stringify or the engine's abort checks read, replaced by an attempt: each such
// attempt is errored naming what it replaced, and the rest of the run is reported and stored whole.
const hostileSuite = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});

export const hostile = defineSuite({
  id: "hostile",
  concurrency: 1,
  cases: [
    { id: "before", input: "a", expected: "a" },
    { id: "object-tojson", input: "object-tojson", expected: "object-tojson" },
    { id: "after-object", input: "b", expected: "b" },
    { id: "array-tojson", input: "array-tojson", expected: "array-tojson" },
    { id: "last", input: "c", expected: "c" },
  ],
  target: async (input) => {
    if (input === "object-tojson")
      Object.defineProperty(Object.prototype, "toJSON", { value: () => "hijacked", writable: true, configurable: true });
    if (input === "array-tojson")
      Object.defineProperty(Array.prototype, "toJSON", { value: () => "hijacked", writable: true, configurable: true });
    await new Promise((resolve) => setTimeout(resolve, 5));
    return input;
  },
  scorers: [same],
});
`;

interface JsonReport {
  records: AttemptRecord[];
}

describe("an attempt that adds toJSON to a prototype (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/hostile.eval.js": hostileSuite });
  });
  afterAll(() => project.cleanup());

  for (const mode of [[], ["--no-supervise"]]) {
    const label = mode.length ? ` (${mode[0]})` : "";
    it(`errors that attempt naming it, and reports and stores every attempt${label}`, async () => {
      const store = `store${mode.length}.sqlite`;
      const json = `report${mode.length}.json`;
      const run = await runCli(["run", "--json", json, "--store", store, ...mode], project.dir);
      expect(run.stderr).not.toMatch(/could not read|niceeval bug|crashed|refused/);
      expect(run.code).toBe(1);
      const report = JSON.parse(await readFile(join(project.dir, json), "utf8")) as JsonReport;
      const verdicts = report.records.map((r) => `${r.caseId}:${r.verdict}`);
      expect(verdicts).toEqual([
        "before:passed",
        "object-tojson:errored",
        "after-object:passed",
        "array-tojson:errored",
        "last:passed",
      ]);
      const byId = new Map(report.records.map((r) => [r.caseId, r]));
      expect(byId.get("object-tojson")?.error?.message).toContain(
        "the code under test replaced Object.prototype.toJSON while this attempt ran",
      );
      expect(byId.get("array-tojson")?.error?.message).toContain("replaced Array.prototype.toJSON");
      const opened = await openSqliteStore(join(project.dir, store));
      try {
        const [stored] = await opened.listRuns({ limit: 1 });
        expect(stored?.status).toBe("finished");
        expect(stored?.totals).toMatchObject({ attempts: 5, passed: 3, errored: 2 });
      } finally {
        await opened.close();
      }
    }, 60_000);
  }
});

// The engine asks its signals whether they aborted between and around attempts: a getter that
// throws crashed an in-process run and left a supervised one waiting for good.
const abortedSuite = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});

export const signals = defineSuite({
  id: "signals",
  concurrency: 1,
  cases: [
    { id: "before", input: "a", expected: "a" },
    { id: "aborted-getter", input: "aborted", expected: "aborted" },
    { id: "after", input: "b", expected: "b" },
    { id: "checks-signal", input: "checks", expected: "checks" },
  ],
  target: async (input, { signal }) => {
    if (input === "aborted")
      Object.defineProperty(AbortSignal.prototype, "aborted", {
        get() { throw new Error("no aborted for you"); },
        configurable: true,
      });
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (input === "checks" && signal.aborted) return "stopped";
    return input;
  },
  scorers: [same],
});
`;

describe("an attempt that replaces AbortSignal.prototype.aborted (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/signals.eval.js": abortedSuite });
  });
  afterAll(() => project.cleanup());

  for (const mode of [[], ["--no-supervise"]]) {
    const label = mode.length ? ` (${mode[0]})` : "";
    it(`errors that attempt naming it, and the run ends whole${label}`, async () => {
      const store = `store${mode.length}.sqlite`;
      const json = `report${mode.length}.json`;
      const run = await runCli(
        ["run", "--json", json, "--store", store, "--hang-timeout", "3000", ...mode],
        project.dir,
        { NICEEVAL_LAST_RESORT_MS: "10000" },
      );
      expect(run.stderr).not.toMatch(/uncaught|crashed|not tied/);
      expect(run.code).toBe(1);
      const report = JSON.parse(await readFile(join(project.dir, json), "utf8")) as JsonReport;
      expect(report.records.map((r) => `${r.caseId}:${r.verdict}`)).toEqual([
        "before:passed",
        "aborted-getter:errored",
        "after:passed",
        "checks-signal:passed",
      ]);
      expect(report.records[1]?.error?.message).toContain(
        "the code under test replaced AbortSignal.prototype.aborted while this attempt ran",
      );
      const opened = await openSqliteStore(join(project.dir, store));
      try {
        const [stored] = await opened.listRuns({ limit: 1 });
        expect(stored?.status).toBe("finished");
        expect(stored?.totals).toMatchObject({ attempts: 4, passed: 3, errored: 1 });
      } finally {
        await opened.close();
      }
    }, 60_000);
  }
});
