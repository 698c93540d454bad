import { existsSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/eval/record.js";
import { openSqliteStore } from "../../src/store/index.js";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";

// Attempts that remove process listeners niceeval keeps: each is errored naming what it removed,
// the listeners are put back, and the run ends as soon and as whole as any other.
const removingSuite = `
import { writeFileSync } from "node:fs";
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});

export const removing = defineSuite({
  id: "removing",
  concurrency: 1,
  cases: [
    { id: "before", input: "a", expected: "a" },
    { id: "remove-all", input: "all", expected: "all" },
    { id: "after-all", input: "b", expected: "b" },
    { id: "remove-message", input: "message", expected: "message" },
    { id: "off-exception", input: "off", expected: "off" },
    { id: "last", input: "c", expected: "c" },
  ],
  target: async (input) => {
    if (input === "all") process.removeAllListeners();
    if (input === "message") process.removeAllListeners("message");
    if (input === "off")
      for (const listener of process.listeners("uncaughtException"))
        process.off("uncaughtException", listener);
    // The process that ran the attempts says how it ended: by its own exit (after "close"),
    // or not at all when killed.
    if (input === "c")
      process.once("exit", () => writeFileSync("ended-" + (process.send ? "eval" : "cli"), ""));
    await new Promise((resolve) => setTimeout(resolve, 5));
    return input;
  },
  scorers: [same],
});
`;

// The uncaught-error listener removed, then a timer the attempt left throws once it has ended.
const lateThrowSuite = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const returned = createScorer({ name: "returned", score: ({ output }) => ({ score: output ? 1 : 0 }) });

export const late = defineSuite({
  id: "late",
  concurrency: 1,
  cases: [
    { id: "drops-listener", input: "drop" },
    { id: "waits", input: "wait" },
  ],
  target: async (input) => {
    if (input === "drop") {
      process.removeAllListeners("uncaughtException");
      setTimeout(() => { throw new Error("late timer of drops-listener"); }, 30);
      return input;
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    return input;
  },
  scorers: [returned],
});
`;

// Every listener removed, then a later attempt signals its own process: Node's signal handling
// must be put back with niceeval's listeners, or the signal ends the process as if none listened.
const signalSuite = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

const same = createScorer({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});

export const signalled = defineSuite({
  id: "signalled",
  concurrency: 1,
  cases: [
    { id: "remove-all", input: "all", expected: "all" },
    { id: "signals", input: "signal", expected: "signal" },
  ],
  target: async (input) => {
    if (input === "all") process.removeAllListeners();
    if (input === "signal") process.kill(process.pid, "SIGINT");
    await new Promise((resolve) => setTimeout(resolve, 100));
    return input;
  },
  scorers: [same],
});
`;

interface JsonReport {
  records: AttemptRecord[];
}

const modes = [[], ["--no-supervise"]] as const;

describe("an attempt that removes niceeval's process listeners (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({
      "evals/removing.eval.js": removingSuite,
      "late/late.eval.js": lateThrowSuite,
      "signal/signal.eval.js": signalSuite,
    });
  });
  afterAll(() => project.cleanup());

  for (const mode of modes) {
    const label = mode.length ? ` (${mode[0]})` : "";
    it(`errors each such attempt naming it, and the run ends at once and whole${label}`, async () => {
      const store = `store${mode.length}.sqlite`;
      const json = `report${mode.length}.json`;
      const run = await runCli(
        ["run", "evals", "--json", json, "--store", store, ...mode],
        project.dir,
      );
      expect(run.stderr).not.toMatch(/uncaught|crashed|not tied|killed/);
      expect(run.code).toBe(1);
      // The eval process hears "close" again and exits: it is not killed after a wait.
      const ended = join(project.dir, mode.length ? "ended-cli" : "ended-eval");
      expect(existsSync(ended)).toBe(true);
      await rm(ended);
      const report = JSON.parse(await readFile(join(project.dir, json), "utf8")) as JsonReport;
      // The CLI's own process (--no-supervise) keeps no 'message' listener.
      const message = mode.length ? "passed" : "errored";
      expect(report.records.map((r) => `${r.caseId}:${r.verdict}`)).toEqual([
        "before:passed",
        "remove-all:errored",
        "after-all:passed",
        `remove-message:${message}`,
        "off-exception:errored",
        "last:passed",
      ]);
      const byId = new Map(report.records.map((r) => [r.caseId, r.error?.message ?? ""]));
      expect(byId.get("remove-all")).toMatch(
        /^the code under test removed niceeval's process 'exit', .*'uncaughtException'.* listeners .*while this attempt ran/,
      );
      expect(byId.get("remove-all")).toContain("process.removeAllListeners()");
      if (mode.length === 0) {
        expect(byId.get("remove-message")).toContain(
          "the code under test removed niceeval's process 'message' listener while this attempt ran",
        );
      }
      expect(byId.get("off-exception")).toContain("'uncaughtException'");
      const opened = await openSqliteStore(join(project.dir, store));
      try {
        const [stored] = await opened.listRuns({ limit: 1 });
        expect(stored?.status).toBe("finished");
        expect(stored?.totals).toMatchObject({ attempts: 6, errored: mode.length ? 2 : 3 });
      } finally {
        await opened.close();
      }
    }, 60_000);

    it(`names the removed uncaughtException listener when a later timer throws${label}`, async () => {
      const json = `late${mode.length}.json`;
      const run = await runCli(["run", "late", "--json", json, "--no-store", ...mode], project.dir);
      expect(run.stderr).not.toMatch(/exited with code|niceeval bug|crashed/);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("late timer of drops-listener");
      const report = JSON.parse(await readFile(join(project.dir, json), "utf8")) as JsonReport;
      const byId = new Map(report.records.map((r) => [r.caseId, r]));
      expect(report.records).toHaveLength(2);
      expect(byId.get("drops-listener")?.verdict).toBe("errored");
      expect(byId.get("drops-listener")?.error?.message).toContain(
        "removed niceeval's process 'uncaughtException' listener",
      );
    }, 60_000);

    it(`hears signals as before once the listeners are put back${label}`, async () => {
      const json = `signal${mode.length}.json`;
      const run = await runCli(
        ["run", "signal", "--json", json, "--no-store", ...mode],
        project.dir,
      );
      const report = JSON.parse(await readFile(join(project.dir, json), "utf8")) as JsonReport;
      const verdicts = report.records.map((r) => `${r.caseId}:${r.verdict}`);
      if (mode.length) {
        // In the CLI's own process the signal stops the run, which still writes its report.
        expect(run.code).toBe(130);
        expect(run.stderr).toContain("SIGINT: no new case starts");
        expect(verdicts).toEqual(["remove-all:errored", "signals:errored"]);
      } else {
        // The eval process leaves signals to its supervisor.
        expect(run.stderr).not.toMatch(/exited|killed|SIGINT/);
        expect(run.code).toBe(1);
        expect(verdicts).toEqual(["remove-all:errored", "signals:passed"]);
      }
    }, 60_000);
  }
});
