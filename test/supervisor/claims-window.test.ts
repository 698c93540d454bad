import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/eval/record.js";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";

// The fixtures' scorer: a tool scorer answers synchronously, so with a synchronous target the
// attempt does too.
const toolScorer = `import { bindScorer, defineSuite } from "niceeval";
import { evalScorersProvider, exactMatchTool } from "niceeval/scorers";

const same = bindScorer({
  id: "same",
  tool: exactMatchTool,
  driver: evalScorersProvider,
  mapInput: ({ output, expected }) => ({ actual: String(output), expected: String(expected) }),
});
`;

// Fast synchronous attempts run ahead in windows listed in the claims file before they start
// (up to 256 at once). A crash in the middle of a window must still be put on its attempt only:
// those listed and not started run again and pass.
// The same with an async target that resolves at once: its attempts answer by the next turn, so
// they too are listed a window at a time.
const suite = (kill: string, asyncTarget = false) => `
${toolScorer}
export const windows = defineSuite({
  id: "windows",
  cases: Array.from({ length: 3000 }, (_, i) => ({ id: "c" + i, input: i, expected: i })),
  target: ${asyncTarget ? "async " : ""}(i) => {
    if (i === 2100) ${kill};
    return i;
  },
  scorers: [same],
});
`;

// Fast attempts first (the window grows), then slow asynchronous ones, one of which (c310, after
// 30 ms) kills the eval process. Each slow attempt logs how many were running when it started.
// `fastAsync`: the fast attempts' target returns a promise resolved at once. `firstKills`: the
// first slow one, c300, kills it too, from a timer already due when its start (2 ms) is over.
const mixed = (name: string, { fastAsync = false, firstKills = false } = {}) => `
import { appendFileSync } from "node:fs";
import { join } from "node:path";
${toolScorer}
let inFlight = 0;

export const mixed = defineSuite({
  id: "${name}",
  cases: Array.from({ length: 360 }, (_, i) => ({ id: "c" + i, input: i, expected: i })),
  target: (i) => {
    if (i < 300) return ${fastAsync ? "Promise.resolve(i)" : "i"};
    inFlight++;
    appendFileSync(join(process.cwd(), "${name}-in-flight.log"), i + " " + inFlight + "\\n");
    if (${firstKills} && i === 300) {
      setTimeout(() => process.kill(process.pid, "SIGKILL"), 0);
      const end = performance.now() + 2;
      while (performance.now() < end);
    }
    return new Promise((resolve) => {
      setTimeout(() => {
        if (i === 310) process.kill(process.pid, "SIGKILL");
        inFlight--;
        resolve(i);
      }, 30);
    });
  },
  scorers: [same],
});
`;

// Fast attempts between two slow ones grow the window; then an uncaught error nobody can place
// (thrown from c0's timer while c1 runs) stops running ahead, and c1, run again alone, kills the
// eval process. The window's attempts that never started must not be listed by then.
const stopped = `
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createScorer, defineSuite } from "niceeval";

const same = createScorer({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});
const busy = (ms) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};

export const stopped = defineSuite({
  id: "stopped",
  cases: Array.from({ length: 400 }, (_, i) => ({ id: "c" + i, input: i, expected: i })),
  target: (i) => {
    if (i === 0) {
      setTimeout(() => {
        throw new Error("unplaced");
      }, 120);
      return new Promise((resolve) => setTimeout(() => resolve(i), 400));
    }
    if (i === 1) {
      const marker = join(process.cwd(), "c1.marker");
      if (existsSync(marker)) process.kill(process.pid, "SIGKILL");
      writeFileSync(marker, "");
      return new Promise((resolve) => setTimeout(() => resolve(i), 400));
    }
    if (i < 100) {
      busy(3);
      return i;
    }
    return new Promise((resolve) => setTimeout(() => resolve(i), 5));
  },
  scorers: [same],
});
`;

interface JsonReport {
  records: AttemptRecord[];
}

describe("attempts listed in the claims file a window at a time (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({
      "evals/killed.eval.ts": suite('process.kill(process.pid, "SIGKILL")'),
      "evals/busy.eval.ts": suite("for (;;) {}").replace('id: "windows"', 'id: "busy"'),
      "evals/async-killed.eval.ts": suite('process.kill(process.pid, "SIGKILL")', true).replace(
        'id: "windows"',
        'id: "async-windows"',
      ),
      "evals/async-fast.eval.ts": `${toolScorer}
export const fast = defineSuite({
  id: "async-fast",
  cases: Array.from({ length: 10000 }, (_, i) => ({ id: "c" + i, input: i, expected: i })),
  target: async (i) => i,
  scorers: [same],
});
`,
      "evals/mixed.eval.ts": mixed("mixed"),
      "evals/async-mixed.eval.ts": mixed("async-mixed", { fastAsync: true }),
      "evals/first-kills.eval.ts": mixed("first-kills", { firstKills: true }),
      "evals/stopped.eval.ts": stopped,
    });
  });
  afterAll(() => project.cleanup());

  /** Run one fixture with a JSON report; the CLI's answer and the report's records. */
  const runReport = async (file: string, flags: readonly string[]) => {
    const run = await runCli(
      ["run", `evals/${file}.eval.ts`, "--no-store", ...flags, "--json", `${file}.json`],
      project.dir,
    );
    const report = JSON.parse(
      await readFile(join(project.dir, `${file}.json`), "utf8"),
    ) as JsonReport;
    return { run, records: report.records };
  };

  for (const [file, cause] of [
    ["killed", /the eval process was killed by SIGKILL during this case/],
    [
      "busy",
      /the event loop was blocked for 500 ms .*; make its code yield \(await between its steps\), or raise --hang-timeout if it must hold the thread longer$/,
    ],
  ] as const) {
    it(`errors only the attempt that ${file === "killed" ? "killed" : "blocked"} the eval process; the others listed beside it run again and pass`, async () => {
      const { run, records } = await runReport(file, ["--hang-timeout", "500"]);
      expect(run.code).toBe(1);
      expect(records).toHaveLength(3000);
      const errored = records.filter((r) => r.verdict !== "passed");
      expect(errored.map((r) => r.caseId)).toEqual(["c2100"]);
      expect(errored[0]!.error?.message).toMatch(cause);
      expect(run.stderr).toMatch(/starting a new eval process/);
    });
  }

  it("errors only the attempt that killed the eval process among async attempts that resolve at once", async () => {
    const { run, records } = await runReport("async-killed", ["--hang-timeout", "500"]);
    expect(run.code).toBe(1);
    expect(records).toHaveLength(3000);
    const errored = records.filter((r) => r.verdict !== "passed");
    expect(errored.map((r) => r.caseId)).toEqual(["c2100"]);
  });

  it("sends the records of async attempts that resolve at once in batches, not a message per slot's worth", async () => {
    // Each process counts its process.send calls (the eval process's are its messages to the
    // CLI) and appends the count at its exit.
    const counts = join(project.dir, "sends.txt");
    const hook = join(project.dir, "count-sends.mjs");
    await writeFile(
      hook,
      `import { appendFileSync } from "node:fs";
if (process.send) {
  let sent = 0;
  const send = process.send.bind(process);
  process.send = (...args) => { sent++; return send(...args); };
  process.on("exit", () => appendFileSync(${JSON.stringify(counts)}, sent + "\\n"));
}
`,
    );
    const run = await runCli(["run", "evals/async-fast.eval.ts", "--no-store"], project.dir, {
      NODE_OPTIONS: `--import=${hook}`,
    });
    expect(run.code, run.stderr).toBe(0);
    const sent = (await readFile(counts, "utf8")).trim().split("\n").map(Number);
    expect(sent).toHaveLength(1);
    // 10,000 attempts at 8 slots: a message each time 8 start would be 1,250 and more; batches
    // of 2 ms make it a few dozen here (one per 2 ms at most: 600 would take a 1.2 s run).
    expect(sent[0]).toBeLessThan(600);
  });

  const checkSlowNotListed = async (name: string, errors: readonly string[]) => {
    const { run, records } = await runReport(name, []);
    expect(run.code).toBe(1);
    const errored = records.filter((r) => r.verdict !== "passed");
    expect(errored.map((r) => r.caseId)).toEqual(errors);
    const starts = (await readFile(join(project.dir, `${name}-in-flight.log`), "utf8"))
      .trim()
      .split("\n")
      .map((line) => line.split(" ").map(Number) as [number, number]);
    // Alone: the first slow attempt, those in flight at each crash (run again one at a time) and
    // the first in each new eval process. Had the rest of the window (c311 … c359) stayed listed,
    // each would have run alone too.
    const alone = starts.filter(([, running]) => running === 1).length;
    expect(alone).toBeLessThan(30);
  };

  it("lists no slow attempt before it starts, after fast synchronous ones: after a crash beside them, they run at the run's concurrency, not alone", async () => {
    await checkSlowNotListed("mixed", ["c310"]);
  });

  it("lists no slow attempt before it starts, after fast async ones", async () => {
    await checkSlowNotListed("async-mixed", ["c310"]);
  });

  it("unlists the rest of the window as soon as a slow attempt starts, before any timer of it can fire", async () => {
    await checkSlowNotListed("first-kills", ["c300", "c310"]);
  });

  it("unlists the window's attempts that will not start once running ahead stops", async () => {
    const { run, records } = await runReport("stopped", ["--concurrency", "4"]);
    expect(run.code).toBe(1);
    expect(records).toHaveLength(400);
    expect(records.filter((r) => r.verdict !== "passed").map((r) => r.caseId)).toEqual([
      "c0",
      "c1",
    ]);
    // Only c1 was running when it killed the eval process: the attempts of the window that never
    // started there are not put beside it (they were, as "c1 and 244 more", before).
    expect(run.stderr).toMatch(/killed by SIGKILL during stopped\/c1;/);
    expect(run.stderr).not.toMatch(/during stopped\/c1 and \d+ more/);
  });
});
