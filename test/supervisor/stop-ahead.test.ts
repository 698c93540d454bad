import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, readJsonRecords, startCli } from "../support/project.js";

// Cases whose index is in SLOW never settle (each says so on stderr when it starts); those in
// THROW throw at once; the others answer at once. With c0 slow, the engine holds at c0's reorder
// window while the eval process runs the rest ahead.
const suite = (cases: number, slow: number[], throws: number[] = []) => `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });
const slow = new Set(${JSON.stringify(slow)});
const throws = new Set(${JSON.stringify(throws)});
export const ahead = defineSuite({
  id: "ahead",
  cases: Array.from({ length: ${cases} }, (_, i) => ({ id: "c" + i, input: i, expected: i })),
  target: async (i) => {
    if (slow.has(i)) { console.error("SLOW-STARTED c" + i); await new Promise(() => {}); }
    if (throws.has(i)) throw new Error("a bug in case " + i);
    return i;
  },
  scorers: [same],
});
`;

/** Run the CLI, SIGINT 300 ms after `started` slow cases began; SIGINT twice more after 20 s. */
async function stopAfter(dir: string, started: number) {
  let signalledAt = Number.NaN;
  let late: NodeJS.Timeout | undefined;
  const run = startCli(
    ["run", "--concurrency", "4", "--grace", "500", "--no-store", "--json", "out.json"],
    dir,
    (stderr, child) => {
      if (!Number.isNaN(signalledAt) || (stderr.match(/SLOW-STARTED/g) ?? []).length < started)
        return;
      signalledAt = performance.now();
      setTimeout(() => child.kill("SIGINT"), 300);
      late = setTimeout(() => {
        child.kill("SIGINT");
        setTimeout(() => child.kill("SIGINT"), 200);
      }, 20_000);
    },
  );
  const ended = await run.ended;
  clearTimeout(late);
  return { ...ended, afterSignalMs: performance.now() - signalledAt };
}

describe("a supervised run stopped while its eval process ran ahead of the engine (real CLI)", () => {
  const projects: FixtureProject[] = [];
  afterAll(() => Promise.all(projects.map((p) => p.cleanup())));
  const project = async (source: string) => {
    const made = await makeProject({ "evals/ahead.eval.ts": source });
    projects.push(made);
    return made.dir;
  };

  let held: string;
  let cut: string;
  let threw: string;
  beforeAll(async () => {
    held = await project(suite(2000, [0]));
    cut = await project(suite(300, [0, 280, 281, 282]));
    threw = await project(suite(300, [0], [270]));
  });

  it("ends once the grace period ends, though cases past the engine's window are unread", async () => {
    const run = await stopAfter(held, 1);
    expect(run.code).toBe(130);
    // Before: the engine read on for the records run ahead, from an eval process the grace
    // period's end had killed, and waited for good.
    expect(run.afterSignalMs).toBeLessThan(10_000);
    expect(run.stderr).not.toMatch(/SIGINT again:/);
    const records = await readJsonRecords(held, "out.json");
    const c0 = records.find((r) => r.caseId === "c0");
    expect(c0?.error?.message).toMatch(/did not finish within the 0\.5 s grace period/);
    expect(records.filter((r) => r.verdict === "passed").length).toBe(records.length - 1);
  }, 60_000);

  it("errors as cut off the attempts begun ahead that the grace period's end cut off", async () => {
    const run = await stopAfter(cut, 4);
    expect(run.code).toBe(130);
    const records = await readJsonRecords(cut, "out.json");
    for (const id of ["c0", "c280", "c281", "c282"]) {
      const record = records.find((r) => r.caseId === id);
      // Before: c280 to c282 had no record at all (refused as not started).
      expect(record?.verdict, id).toBe("errored");
      expect(record?.error?.message, id).toMatch(/did not finish within the 0\.5 s grace period/);
      expect(record?.error?.interrupted, id).toBe(true);
    }
    expect(records).toHaveLength(300 - 17);
  }, 60_000);

  it("keeps an error that happened ahead before the stop as the target's, not as interrupted", async () => {
    const run = await stopAfter(threw, 1);
    expect(run.code).toBe(130);
    const records = await readJsonRecords(threw, "out.json");
    const c270 = records.find((r) => r.caseId === "c270");
    expect(c270?.error?.message).toMatch(/a bug in case 270/);
    // Before: marked interrupted, so a plain --resume ran the failure again.
    expect(c270?.error?.interrupted).toBeUndefined();
    expect(records.find((r) => r.caseId === "c0")?.error?.interrupted).toBe(true);
  }, 60_000);
});
