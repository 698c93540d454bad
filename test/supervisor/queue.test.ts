import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/eval/record.js";
import { openSqliteStore } from "../../src/store/index.js";
import { type FixtureProject, makeProject, runAndSignal, runCli } from "../support/project.js";

// The supervisor hands the eval process more attempts than --concurrency (they wait in its
// queue), so it never waits for the supervisor between attempts. These runs check what that
// must not change: how many run at once, when an attempt's time limit starts, what a crash
// costs the attempts that were only waiting, and what a stopped run records.

const same = `const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });`;

// Each target says how many attempts ran at once in the eval process when it started.
const countingSuite = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
${same}
let running = 0;
let peak = 0;
export const counting = defineSuite({
  id: "counting",
  cases: Array.from({ length: 60 }, (_, i) => ({ id: "c" + i, input: i, expected: i })),
  target: async (i) => {
    running++;
    if (running > peak) {
      peak = running;
      console.error("PEAK " + peak);
    }
    await new Promise((r) => setTimeout(r, 2 + (i % 5) * 3));
    running--;
    return i;
  },
  scorers: [same],
});
`;

// One at a time, 250 ms each: the last ones wait in the eval process's queue longer than the
// whole-attempt limit (--timeout 1000 gives 2000 ms), which must count from their own start.
const slowSuite = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
${same}
export const slow = defineSuite({
  id: "slow",
  cases: Array.from({ length: 14 }, (_, i) => ({ id: "s" + i, input: i, expected: i })),
  target: async (i) => {
    await new Promise((r) => setTimeout(r, 250));
    return i;
  },
  scorers: [same],
});
`;

// Two cases that each bring the eval process down the first time they run.
const crashingSuite = `
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
${same}
export const crashes = defineSuite({
  id: "crashes",
  cases: ["ok-0", "die-a", "die-b", "ok-1", "ok-2", "ok-3"].map((id) => ({ id, input: id, expected: id })),
  target: async (id) => {
    const marker = join(process.cwd(), id + ".crashed");
    if (id.startsWith("die-") && !existsSync(marker)) {
      writeFileSync(marker, "1");
      process.exit(1);
    }
    return id;
  },
  scorers: [same],
});
`;

// Synchronous cases, two of which end the eval process the first time they run, right after
// others finished: those records are still in the process's outbox when it exits.
const exitingSuite = `
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
${same}
export const exits = defineSuite({
  id: "exits",
  cases: ["done-0", "done-1", "bye-a", "done-2", "done-3", "bye-b", "done-4"].map((id) => ({ id, input: id, expected: id })),
  target: (id) => {
    const marker = join(process.cwd(), id + ".exited");
    if (id.startsWith("bye-") && !existsSync(marker)) {
      writeFileSync(marker, "1");
      process.exit(0);
    }
    return id;
  },
  scorers: [same],
});
`;

// No concurrency of its own: the run's --concurrency 1 lets the later cases wait in the queue.
const hangingSuite = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
${same}
export const waits = defineSuite({
  id: "waits",
  cases: [
    { id: "quick-1", input: "a", expected: "a" },
    { id: "quick-2", input: "b", expected: "b" },
    { id: "never", input: "never", expected: "never" },
    ...Array.from({ length: 20 }, (_, i) => ({ id: "queued-" + i, input: "q", expected: "q" })),
  ],
  target: async (input) => {
    if (input === "never") {
      console.error("TARGET-STARTED never");
      await new Promise(() => {});
    }
    return input;
  },
  scorers: [same],
});
`;

// Every fifth record carries values JSON cannot carry exactly (a Date, a Map): those go whole by
// structured clone, and the records around them still arrive as changes against a base.
const mixedSuite = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const noted = createScorer({
  name: "noted",
  score: ({ output }) => ({
    score: 1,
    metadata: output % 5 === 0 ? { at: new Date(output * 1000), seen: new Map([["n", output]]) } : { n: output },
  }),
});
export const mixed = defineSuite({
  id: "mixed",
  cases: Array.from({ length: 40 }, (_, i) => ({ id: "m" + i, input: i })),
  target: (i) => i,
  scorers: [noted],
});
`;

interface JsonReport {
  records: AttemptRecord[];
}

async function report(dir: string, file: string): Promise<Map<string, AttemptRecord>> {
  const parsed = JSON.parse(await readFile(join(dir, file), "utf8")) as JsonReport;
  return new Map(parsed.records.map((record) => [record.caseId, record]));
}

describe("attempts queued in the eval process (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({
      "evals/counting.eval.ts": countingSuite,
      "evals/slow.eval.ts": slowSuite,
      "evals/crashes.eval.ts": crashingSuite,
      "evals/waits.eval.ts": hangingSuite,
      "evals/mixed.eval.ts": mixedSuite,
      "evals/exits.eval.ts": exitingSuite,
    });
  });
  afterAll(() => project.cleanup());

  it("runs at most --concurrency attempts at once, however many wait", async () => {
    const run = await runCli(
      ["run", "evals/counting.eval.ts", "--concurrency", "3", "--no-store", "--json", "c.json"],
      project.dir,
    );
    expect(run.code).toBe(0);
    const peaks = [...run.stderr.matchAll(/PEAK (\d+)/g)].map((m) => Number(m[1]));
    expect(Math.max(...peaks)).toBe(3);
    const cases = await report(project.dir, "c.json");
    expect(cases.size).toBe(60);
    // Reported in case order, whatever order they finished in.
    expect([...cases.keys()]).toEqual(Array.from({ length: 60 }, (_, i) => `c${i}`));
  });

  it("counts an attempt's time limit from when it starts, not while it waits in the queue", async () => {
    const run = await runCli(
      ["run", "evals/slow.eval.ts", "--concurrency", "1", "--timeout", "1000", "--no-store"],
      project.dir,
    );
    expect(run.stdout).not.toMatch(/timed out/);
    expect(run.stdout).toMatch(/14 cases · 14 passed/);
    expect(run.code).toBe(0);
  });

  it("runs the attempts that were waiting at a crash again without a strike", async () => {
    const run = await runCli(
      ["run", "evals/crashes.eval.ts", "--concurrency", "1", "--no-store", "--json", "x.json"],
      project.dir,
    );
    const cases = await report(project.dir, "x.json");
    // die-b was waiting when die-a brought the process down: had that counted against it, its
    // own crash would be its second and it would be errored instead of run again.
    expect(Object.fromEntries([...cases].map(([id, r]) => [id, r.verdict]))).toEqual({
      "ok-0": "passed",
      "die-a": "passed",
      "die-b": "passed",
      "ok-1": "passed",
      "ok-2": "passed",
      "ok-3": "passed",
    });
    const crashes = run.stderr
      .split("\n")
      .filter((line) => line.includes("starting a new eval process"));
    // Each exit came once and not again when its attempt ran alone: it is the run's, which fails;
    // unless it came just after an attempt ended whose record was kept (timing decides which),
    // which it stays with, as test/supervisor/exit-after.test.ts has it.
    if (crashes.every((line) => line.includes("just after"))) expect(run.code).toBe(0);
    else {
      expect(run.stderr).toMatch(/did not end it again when it ran alone.*not tied to one case/);
      expect(run.code).toBe(1);
    }
    expect(crashes).toHaveLength(2);
    // Each crash names the one attempt that had started, and only that one runs alone. The
    // first may come while die-a runs ahead, before the engine asked for it: one attempt then.
    // One that had just ended, its record written on the way out, may be named as such.
    const after = "(, just after [^;]* ended)?";
    expect(crashes[0]).toMatch(
      new RegExp(
        `during (crashes/die-a${after}; running 1 of them again, one at a time|1 attempt run ahead)`,
      ),
    );
    expect(crashes[1]).toMatch(
      new RegExp(`during crashes/die-b${after}; running 1 of them again, one at a time`),
    );
    expect(run.stderr).not.toMatch(/not run again/);
  });

  it("does not count an attempt that finished just before process.exit as in flight", async () => {
    const run = await runCli(
      ["run", "evals/exits.eval.ts", "--concurrency", "1", "--no-store", "--json", "e.json"],
      project.dir,
    );
    const cases = await report(project.dir, "e.json");
    expect([...cases.values()].map((r) => `${r.caseId}:${r.verdict}`)).toEqual(
      ["done-0", "done-1", "bye-a", "done-2", "done-3", "bye-b", "done-4"].map(
        (id) => `${id}:passed`,
      ),
    );
    const crashes = run.stderr
      .split("\n")
      .filter((line) => line.includes("starting a new eval process"));
    // Each exit came once and not again when its attempt ran alone: it is the run's, which fails;
    // unless it came just after an attempt ended whose record was kept (timing decides which),
    // which it stays with, as test/supervisor/exit-after.test.ts has it.
    if (crashes.every((line) => line.includes("just after"))) expect(run.code).toBe(0);
    else {
      expect(run.stderr).toMatch(/did not end it again when it ran alone.*not tied to one case/);
      expect(run.code).toBe(1);
    }
    // The first exit comes while the process runs the cases ahead, the second once the
    // supervisor sends them: either way the case before it finished (its record, written on the
    // way out, is kept: the notice may name it as just ended), and only bye-* ran then.
    expect(crashes).toEqual([
      expect.stringMatching(
        /exited with code 0(?: \(process\.exit called at .*?\)\))? during (exits\/bye-a(, just after [^;]* ended)?; running 1 of them again|1 attempt run ahead)/,
      ),
      expect.stringMatching(
        /exited with code 0(?: \(process\.exit called at .*?\)\))? during exits\/bye-b(, just after [^;]* ended)?; running 1 of them again/,
      ),
    ]);
  });

  it("records none of the attempts still waiting when a signal stops the run", async () => {
    const run = await runAndSignal(
      ["run", "evals/waits.eval.ts", "--concurrency", "1", "--grace", "300", "--store", "w.sqlite"],
      project.dir,
      ["SIGTERM"],
    );
    expect(run.code).toBe(143);
    expect(run.stdout).toMatch(/✓ quick-1 passed/);
    expect(run.stdout).toMatch(/✓ quick-2 passed/);
    expect(run.stdout).toMatch(/! never errored/);
    expect(run.stdout).not.toMatch(/queued-/);
    const store = await openSqliteStore(join(project.dir, "w.sqlite"));
    try {
      const [stored] = await store.listRuns();
      expect(stored?.status).toBe("interrupted");
      const attempts: string[] = [];
      for await (const record of store.streamAttempts(stored!.runId))
        attempts.push(`${record.caseId}:${record.verdict}`);
      expect(attempts.sort()).toEqual(["never:errored", "quick-1:passed", "quick-2:passed"]);
    } finally {
      await store.close();
    }
  });

  it("carries records JSON cannot carry exactly between ones sent as changes", async () => {
    const run = await runCli(
      ["run", "evals/mixed.eval.ts", "--no-store", "--json", "m.json"],
      project.dir,
    );
    expect(run.code).toBe(0);
    const cases = await report(project.dir, "m.json");
    expect([...cases.keys()]).toEqual(Array.from({ length: 40 }, (_, i) => `m${i}`));
    for (const [id, record] of cases) {
      const n = Number(id.slice(1));
      expect(record.verdict).toBe("passed");
      const detail = JSON.stringify(record.judgments[0]?.detail);
      if (n % 5 === 0) expect(detail).toContain(new Date(n * 1000).toISOString());
      else expect(detail).toContain(`"n":${n}`);
    }
  });
});
