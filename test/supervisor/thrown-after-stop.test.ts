import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, readJsonRecords, startCli } from "../support/project.js";

// An uncaught error nobody could place, thrown in the eval process after the run's stop reached
// it: nothing runs again alone after a stop, so the attempts then in flight are cut off. Before,
// stderr first said "each runs again alone to find whose it is", then that they had not.

// Each case says when it starts and waits for the stop; then case "a" throws from a timer 100 ms
// later (before each answers, 500 ms after the stop).
const throwingSuite = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });
export const crash = defineSuite({
  id: "crash",
  cases: ["a", "b", "c", "d"].map((id) => ({ id, input: id, expected: id })),
  target: async (input, { signal }) => {
    console.error("TARGET-STARTED " + input);
    return await new Promise((resolve) => signal.addEventListener("abort", () => {
      if (input === "a") setTimeout(() => { throw new Error("boom from a"); }, 100);
      setTimeout(() => resolve(input), 500);
    }, { once: true }));
  },
  scorers: [same],
});
`;

/** Run the CLI and send SIGINT 300 ms after two attempts printed TARGET-STARTED. */
async function stopAfterTwoStarts(dir: string, args: readonly string[]) {
  let sent = false;
  const run = startCli(["run", ...args], dir, (stderr, child) => {
    if (sent || (stderr.match(/TARGET-STARTED/g) ?? []).length < 2) return;
    sent = true;
    setTimeout(() => child.kill("SIGINT"), 300);
  });
  return run.ended;
}

const THROWN = "niceeval: uncaught exception in user code: boom from a (at ";
const SAID =
  /\), thrown while 2 attempts were in flight, after the run was stopped: they are errored as cut off, not run again alone, so whose it is is not known and it is not put on the run/;

describe("an uncaught error nobody could place, thrown after the run's stop (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/crash.eval.js": throwingSuite });
  });
  afterAll(() => project.cleanup());

  for (const [label, args, resumable] of [
    ["stored", ["--store", "s.sqlite"], true],
    ["under --no-store", ["--no-store"], false],
  ] as const) {
    it(`${label}: says once, first, that the attempts in flight are cut off, not run again`, async () => {
      const json = `${label.replace(/\W+/g, "-")}.json`;
      const run = await stopAfterTwoStarts(project.dir, [
        ...args,
        "--concurrency",
        "2",
        "--json",
        json,
      ]);
      expect(run.code).toBe(130);
      const lines = run.stderr.split("\n").filter((line) => line.includes("boom from a"));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(THROWN);
      expect(lines[0]).toMatch(SAID);
      expect(lines[0]!.endsWith("; a resumed run runs them again")).toBe(resumable);
      expect(run.stderr).not.toMatch(/runs again alone|not tied to one case/);
      const records = await readJsonRecords(project.dir, json);
      expect(records.map((r) => r.caseId).sort()).toEqual(["a", "b"]);
      for (const record of records) {
        expect(record.verdict, record.caseId).toBe("errored");
        expect(record.error?.interrupted, record.caseId).toBe(true);
        expect(record.error?.message, record.caseId).toMatch(
          /^this attempt was in flight when an error no attempt could be tied to was thrown \(uncaught exception in user code: boom from a .*\), and the run was stopped \(interrupted by SIGINT\) before it ran again alone/,
        );
      }
    }, 60_000);
  }
});
