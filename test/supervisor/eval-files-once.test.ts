import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";
import { freePort } from "../support/server.js";

// A supervised run imports the eval files in the eval process only: the CLI runs the evals that
// process describes, reading their cases through it. Top-level code runs once (an app it starts
// on a fixed port is there once), and what it schedules can block only the eval process, which
// the supervisor replaces, never the CLI that writes the report.

const header = `import { appendFileSync } from "node:fs";
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const same = createScorer<string, string>({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});
appendFileSync("imports.log", process.pid + "\\n");
`;

const listensAtTopLevel = `${header}
import { createServer } from "node:http";
const port = Number(process.env.APP_PORT);
const server = createServer((_req, res) => res.end("pong"));
await new Promise<void>((resolve, reject) => {
  server.once("error", reject);
  server.listen(port, "127.0.0.1", () => resolve());
});
server.unref();
export const app = defineSuite<string, string>({
  id: "app",
  cases: function* () {
    for (let i = 0; i < 3; i++) yield { id: "ping-" + i, input: "ping", expected: "pong" };
  },
  target: async () => (await fetch(\`http://127.0.0.1:\${port}/\`)).text(),
  scorers: [same],
});
`;

// A timer set at import blocks the event loop for good once it fires, while a case waits.
const loopsFromATimer = `${header}
setTimeout(() => {
  for (;;) {}
}, 300).unref();
export const slow = defineSuite<string, string>({
  id: "slow",
  cases: [{ id: "waits", input: "a", expected: "a" }],
  target: async (input) => {
    await new Promise((resolve) => setTimeout(resolve, 5000));
    return input;
  },
  scorers: [same],
});
`;

// A dataset whose reading ends the eval process at its sixth case, while the cases before it
// run (none of them is to blame), beside an eval that is fine.
const datasetExits = `${header}
export const crashy = defineSuite<number, number>({
  id: "crashy",
  cases: function* () {
    for (let i = 0; i < 10; i++) {
      if (i === 5) process.exit(3);
      yield { id: "c" + i, input: i, expected: i };
    }
  },
  target: async (i) => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    return i;
  },
  scorers: [same],
});
export const fine = defineSuite<number, number>({
  id: "fine",
  cases: [{ id: "a", input: 1, expected: 1 }],
  target: (i) => i,
  scorers: [same],
});
`;

// Two evals whose datasets each end the eval process: the attempts of the first still re-run
// after its crash (one at a time) while the second's cases are read.
const twoDatasetsExit = `${header}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const exitingAt = (id: string, at: number) =>
  defineSuite<number, number>({
    id,
    cases: async function* () {
      for (let i = 0; i < 12; i++) {
        await sleep(30);
        if (i === at) process.exit(3);
        yield { id: "c" + i, input: i, expected: i };
      }
    },
    target: async (i) => {
      await sleep(200);
      return i;
    },
    scorers: [same],
  });
export const first = exitingAt("first", 8);
export const second = exitingAt("second", 5);
`;

// Cases JSON cannot carry: the CLI holds copies to report; the target gets the real values.
const richCases = `${header}
class Money { constructor(readonly cents: number) {} }
export const rich = defineSuite<{ when: Date; price: Money; format: (n: number) => string }, string>({
  id: "rich",
  cases: [
    {
      id: "r",
      input: { when: new Date(Date.UTC(2026, 0, 2)), price: new Money(250), format: (n) => "$" + n / 100 },
      expected: "2026 $2.5",
    },
  ],
  target: (input) =>
    input.when.getUTCFullYear() + " " + (input.price instanceof Money ? input.format(input.price.cents) : "copy"),
  scorers: [same],
});
`;

// A dataset that takes 40 ms to build each case, synchronously: slow, not hung.
const slowDataset = `${header}
const spin = (ms: number) => {
  const until = Date.now() + ms;
  while (Date.now() < until) {}
};
export const slow = defineSuite<number, number>({
  id: "slow-dataset",
  cases: function* () {
    for (let i = 0; i < 60; i++) {
      spin(40);
      yield { id: "s" + i, input: i, expected: i };
    }
  },
  target: (i) => i,
  scorers: [same],
});
`;

// After a crash (attempts are then sent one by one), an eval whose cases hold Dates and whose
// dataset then stalls: the wait for its next case still ends at --hang-timeout.
const stallsAfterACrash = `${header}
export const boom = defineSuite<number, number>({
  id: "boom",
  cases: [{ id: "x", input: 1, expected: 1 }],
  target: () => process.exit(4),
  scorers: [same],
});
export const dated = defineSuite<Date, number>({
  id: "dated",
  cases: async function* () {
    for (let i = 0; i < 10; i++) {
      if (i === 3) await new Promise(() => {});
      yield { id: "d" + i, input: new Date(i), expected: i };
    }
  },
  target: (input) => input.getTime(),
  scorers: [same],
});
`;

// A dataset whose code holds the thread for good as it builds its third case.
const datasetSpins = `${header}
export const spins = defineSuite<number, number>({
  id: "spins",
  cases: function* () {
    for (let i = 0; i < 5; i++) {
      if (i === 2) for (;;) {}
      yield { id: "s" + i, input: i, expected: i };
    }
  },
  target: (i) => i,
  scorers: [same],
});
`;

const importsOf = async (dir: string) =>
  (await readFile(join(dir, "imports.log"), "utf8")).trim().split("\n");

describe("a supervised run imports the eval files once, in the eval process (real CLI)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({
      "app/app.eval.ts": listensAtTopLevel,
      "loop/loop.eval.ts": loopsFromATimer,
      "exits/exits.eval.ts": datasetExits,
      "two-exits/two.eval.ts": twoDatasetsExit,
      "rich/rich.eval.ts": richCases,
      "slow/slow.eval.ts": slowDataset,
      "stalls/stalls.eval.ts": stallsAfterACrash,
      "spins/spins.eval.ts": datasetSpins,
    });
  });
  afterAll(() => project.cleanup());
  const reportOf = async (file: string) =>
    JSON.parse(await readFile(join(project.dir, file), "utf8")) as {
      records: { evalId: string; caseId: string; verdict: string; error?: { message: string } }[];
    };
  /** Each record as "eval/case verdict", in report order. */
  const outcomesOf = (report: Awaited<ReturnType<typeof reportOf>>) =>
    report.records.map((r) => `${r.evalId}/${r.caseId} ${r.verdict}`);

  it("runs a file whose top-level code can run only once (it listens on a port)", async () => {
    const env = { APP_PORT: String(await freePort()) };
    const run = await runCli(["run", "app", "--store", "runs.sqlite"], project.dir, env);
    expect(run.stderr).toBe("");
    expect(run.stdout).toMatch(/3 passed/);
    expect(run.code).toBe(0);
    // One import: the eval process's (the CLI's would add a line of its own).
    expect(await importsOf(project.dir)).toHaveLength(1);
  }, 60_000);

  it("ends, with the report, when a timer an eval file set blocks the event loop", async () => {
    const run = await runCli(
      ["run", "loop", "--no-store", "--hang-timeout", "1500", "--json", "loop.json"],
      project.dir,
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/the event loop was blocked for 1500 ms/);
    const [record] = (await reportOf("loop.json")).records;
    expect(record?.verdict).toBe("errored");
    expect(record?.error?.message).toMatch(
      /^the event loop was blocked .*; make its code yield \(await between its steps\), or raise --hang-timeout if it must hold the thread longer$/,
    );
  }, 60_000);

  it("runs the cases before one whose reading ends the eval process, and the other evals", async () => {
    const run = await runCli(["run", "exits", "--no-store", "--json", "exits.json"], project.dir);
    expect(run.code).toBe(1);
    const report = await reportOf("exits.json");
    expect(outcomesOf(report)).toEqual([
      "crashy/c0 passed",
      "crashy/c1 passed",
      "crashy/c2 passed",
      "crashy/c3 passed",
      "crashy/c4 passed",
      "crashy/(cases) errored",
      "fine/a passed",
    ]);
    expect(report.records[5]?.error?.message).toMatch(
      /reading the cases of eval "crashy" failed: the eval process exited with code 3(?: \(process\.exit called at .*?\)\))? while it read them; that read was under way at 2 crashes/,
    );
  }, 60_000);

  it("ends the cases of a dataset that holds the thread, saying what to do with its code", async () => {
    const run = await runCli(
      ["run", "spins", "--no-store", "--hang-timeout", "1000", "--json", "spins.json"],
      project.dir,
    );
    expect(run.code).toBe(1);
    const report = await reportOf("spins.json");
    expect(outcomesOf(report)).toEqual([
      "spins/s0 passed",
      "spins/s1 passed",
      "spins/(cases) errored",
    ]);
    expect(report.records[2]?.error?.message).toMatch(
      /the event loop was blocked for 1 s .* while it read them; that read was under way at 2 crashes of the eval process, so the cases after it are not read; make the dataset's code yield \(await between its steps\), or raise --hang-timeout if reading a case must hold the thread longer$/,
    );
  }, 60_000);

  it("runs cases JSON cannot carry with their real values in the eval process", async () => {
    const run = await runCli(["run", "rich", "--store", "rich.sqlite"], project.dir);
    expect(run.stderr).toBe("");
    expect(run.stdout).toMatch(/✓ r passed/);
    expect(run.code).toBe(0);
  }, 60_000);

  it("reads a slow synchronous dataset without blocking the heartbeat", async () => {
    const run = await runCli(["run", "slow", "--no-store", "--hang-timeout", "1000"], project.dir);
    expect(run.stderr).toBe("");
    expect(run.stdout).toMatch(/60 passed/);
    expect(run.code).toBe(0);
  }, 60_000);

  it("ends the wait for a stalled dataset of cases JSON cannot carry, after a crash", async () => {
    const run = await runCli(
      ["run", "stalls", "--no-store", "--hang-timeout", "1500", "--json", "stalls.json"],
      project.dir,
    );
    expect(run.code).toBe(1);
    expect(outcomesOf(await reportOf("stalls.json"))).toEqual([
      "boom/x errored",
      "dated/d0 passed",
      "dated/d1 passed",
      "dated/d2 passed",
      "dated/(cases) errored",
    ]);
  }, 60_000);

  it("hashes a dataset JSON cannot carry as a run in one process does", async () => {
    for (const [name, flags] of [
      ["supervised", []],
      ["in-process", ["--no-supervise"]],
    ] as const) {
      const run = await runCli(
        ["run", "rich", "--store", "hash.sqlite", "--name", name, ...flags],
        project.dir,
      );
      expect(run.code).toBe(0);
    }
    const compared = await runCli(
      ["compare", "supervised", "in-process", "--store", "hash.sqlite"],
      project.dir,
    );
    expect(compared.stdout).not.toMatch(/dataset differs/);
    expect(compared.code).toBe(0);
  }, 60_000);

  it("errors no attempt for crashes of two datasets that ran beside it", async () => {
    const run = await runCli(
      ["run", "two-exits", "--no-store", "--concurrency", "4", "--json", "two.json"],
      project.dir,
    );
    expect(run.code).toBe(1);
    const outcomes = outcomesOf(await reportOf("two.json"));
    expect(outcomes.filter((o) => !o.endsWith(" passed"))).toEqual([
      "first/(cases) errored",
      "second/(cases) errored",
    ]);
    expect(outcomes).toHaveLength(8 + 1 + 5 + 1);
  }, 60_000);
});
