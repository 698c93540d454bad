import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";

// An eval file whose top-level code gives every object a `then` or a `toJSON`: niceeval's own
// awaits and JSON cannot work with it (the eval process waited for its loaded files forever, and
// reports held what toJSON returned), so that file fails to load, the property is removed, and
// the run's other files run and are stored as they are.
const polluting = (key: "then" | "toJSON", body: string) => `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
Object.defineProperty(Object.prototype, "${key}", { value: ${body}, configurable: true, writable: true });
export const bad = defineSuite({
  id: "bad-${key}",
  cases: [{ id: "c", input: 1, expected: 1 }],
  target: (x) => x,
  scorers: [createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) })],
});
`;

const fine = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
export const ok = defineSuite({
  id: "ok",
  cases: [{ id: "a", input: 1, expected: 1 }, { id: "b", input: 2, expected: 2 }],
  target: async (x) => x,
  scorers: [createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) })],
});
`;

describe("an eval file that gives every object a then or a toJSON as it loads (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({
      "evals/a-then.eval.js": polluting("then", "function (resolve) { resolve(42); }"),
      "evals/b-tojson.eval.js": polluting("toJSON", 'function () { return "POLLUTED"; }'),
      "evals/ok.eval.js": fine,
    });
  });
  afterAll(() => project.cleanup());

  for (const [how, flags] of [
    ["supervised", []],
    ["in one process", ["--no-supervise"]],
  ] as const) {
    it(`fails that file, naming what it defined, and runs and stores the others (${how})`, async () => {
      const json = `report-${flags.length}.json`;
      const run = await runCli(
        ["run", "evals", "--store", `s-${flags.length}.sqlite`, "--json", json, ...flags],
        project.dir,
      );
      expect(run.code).toBe(1);
      expect(run.stdout).toContain(
        "evals/a-then.eval.js: its top-level code defined Object.prototype.then (every object would be a promise that every await hands to it); niceeval removed it",
      );
      expect(run.stdout).toContain(
        "evals/b-tojson.eval.js: its top-level code defined Object.prototype.toJSON (every object would be written by JSON.stringify as what it returns)",
      );
      const report = JSON.parse(await readFile(join(project.dir, json), "utf8"));
      expect(
        report.records.map((r: { caseId: string; verdict: string }) => `${r.caseId} ${r.verdict}`),
      ).toEqual(["a passed", "b passed"]);
      const show = await runCli(
        ["show", "latest", "--store", `s-${flags.length}.sqlite`],
        project.dir,
      );
      expect(show.stdout).toMatch(/2 passed/);
    }, 60_000);
  }
});

// Case c2's target replaces Array.prototype.slice with one that throws, and leaves it: the eval
// process's own code calls it, so before it was watched the run waited forever after c2.
const replacesSlice = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
export const s = defineSuite({
  id: "slice",
  cases: [1, 2, 3].map((i) => ({ id: "c" + i, input: i, expected: i })),
  target: async (x) => {
    if (x === 2) Array.prototype.slice = function () { throw new Error("X"); };
    return x;
  },
  scorers: [createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) })],
});
`;

describe("an attempt that replaces a built-in the engine calls (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/slice.eval.js": replacesSlice });
  });
  afterAll(() => project.cleanup());

  for (const [how, flags] of [
    ["supervised", []],
    ["in one process", ["--no-supervise"]],
  ] as const) {
    it(`errors that attempt, naming it, and runs the others (${how})`, async () => {
      const json = `slice-${flags.length}.json`;
      const run = await runCli(
        ["run", "evals", "--no-store", "--concurrency", "1", "--json", json, ...flags],
        project.dir,
      );
      expect(run.code).toBe(1);
      const report = JSON.parse(await readFile(join(project.dir, json), "utf8"));
      const records = report.records as {
        caseId: string;
        verdict: string;
        error?: { message: string };
      }[];
      expect(records.map((r) => `${r.caseId} ${r.verdict}`)).toEqual([
        "c1 passed",
        "c2 errored",
        "c3 passed",
      ]);
      expect(records[1]?.error?.message).toMatch(
        /^the code under test replaced Array\.prototype\.slice while this attempt ran/,
      );
    }, 60_000);
  }

  it("does the same in a process that compiles no code from strings", async () => {
    const env = { NODE_OPTIONS: "--disallow-code-generation-from-strings" };
    for (const flags of [[], ["--no-supervise"]]) {
      const json = `strict-${flags.length}.json`;
      const run = await runCli(
        ["run", "evals", "--no-store", "--concurrency", "1", "--json", json, ...flags],
        project.dir,
        env,
      );
      expect(run.stderr).not.toMatch(/crashed|EvalError/);
      expect(run.code).toBe(1);
      const report = JSON.parse(await readFile(join(project.dir, json), "utf8"));
      expect(report.records.map((r: { verdict: string }) => r.verdict)).toEqual([
        "passed",
        "errored",
        "passed",
      ]);
    }
  }, 60_000);
});
