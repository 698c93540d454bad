// Fleet-wide limits of `niceeval worker`, through the built CLI on a real redis-server: the
// `--rate-limit` shared by every worker, and a judge's 429 on one worker pausing them all.
// Every attempt start appends "<pid> <case> <epoch ms>" to $MARK; the assertions count those.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeLlmServer, fake, startFakeLlmServer } from "../support/fake-llm-server.js";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";
import { startRedis, type TestRedis } from "../support/redis.js";
import { type JsonReport, readStarts, type Start, startWorker, stopAll } from "./fixture.js";

const mark = `if (process.env.MARK) appendFileSync(process.env.MARK, process.pid + " c" + input + " " + Date.now() + "\\n");`;

const RATE_CASES = 9;
const rateEval = `
import { appendFileSync } from "node:fs";
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";

export const limited = defineSuite({
  id: "limited",
  cases: Array.from({ length: ${RATE_CASES} }, (_, i) => ({ id: "c" + i, input: i, expected: i })),
  target: async (input) => {
    ${mark}
    await new Promise((resolve) => setTimeout(resolve, 1800));
    return input;
  },
  scorers: [createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) })],
});
`;

const JUDGED_CASES = 24;
const judgedEval = `
import { appendFileSync } from "node:fs";
import { bindScorer, defineSuite, judgeFromModel } from "niceeval";
import { llmJudge } from "niceeval/scorers";

export const judged = defineSuite({
  id: "judged",
  cases: Array.from({ length: ${JUDGED_CASES} }, (_, i) => ({ id: "c" + i, input: i })),
  target: async (input) => {
    ${mark}
    await new Promise((resolve) => setTimeout(resolve, 300));
    return "answer " + input;
  },
  scorers: [
    bindScorer(
      llmJudge({
        id: "helpful",
        judge: judgeFromModel(process.env.NICEEVAL_JUDGE_MODEL ?? "loopback/judge"),
        criteria: "Is the answer helpful?",
        threshold: 0.5,
        mapOutput: ({ output }) => output,
      }),
    ),
  ],
});
`;

let redis: TestRedis;
let project: FixtureProject;
let server: FakeLlmServer;
let servedAt: number[] = [];

beforeAll(async () => {
  redis = await startRedis();
  project = await makeProject({
    "evals/limited.eval.js": rateEval,
    "judged/evals/judged.eval.js": judgedEval,
  });
  // The first judge call is turned away with Retry-After: 2; every other one is answered.
  server = await startFakeLlmServer({
    respond: () => {
      servedAt.push(Date.now());
      return servedAt.length === 1
        ? fake.rateLimited(2)
        : fake.json({ value: 0.9, rationale: "helpful" });
    },
  });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await redis?.stop();
  await project?.cleanup();
});

const runArgs = (queue: string, report: string) => [
  "run",
  "evals",
  "--queue",
  redis.url,
  "--queue-name",
  queue,
  "--concurrency",
  "64",
  "--json",
  report,
  "--no-store",
];

describe("fleet-wide limits of niceeval worker", () => {
  it("--rate-limit 3/2s on three workers: at most 3 attempt starts per window, fleet-wide", async () => {
    const file = join(project.dir, "rate-marks.txt");
    // Six slots in all, each attempt 1.8 s: unlimited, six would start at once. Limited, all six
    // are free when a window opens, so its three starts bunch there; a worker has two slots, so
    // each such bunch spans at least two workers.
    const workers = await Promise.all(
      [0, 1, 2].map(() =>
        startWorker(project.dir, redis.url, "rate", file, {
          args: ["--rate-limit", "3/2s"],
        }),
      ),
    );
    try {
      const run = await runCli(runArgs("rate", "rate.json"), project.dir);
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      const report = JSON.parse(readFileSync(join(project.dir, "rate.json"), "utf8")) as JsonReport;
      expect(report.records.map((r) => r.verdict)).toEqual(Array(RATE_CASES).fill("passed"));

      const starts = readStarts(file).sort((a, b) => a.at - b.at);
      expect(starts).toHaveLength(RATE_CASES);
      expect(new Set(starts.map((s) => s.caseId)).size).toBe(RATE_CASES);
      // BullMQ's window is fixed, opened by its first start. Counted over 1.2 s from each start
      // (slack either side for the time from taking a job to its target starting):
      for (const start of starts) {
        const inWindow = starts.filter((s) => s.at >= start.at && s.at < start.at + 1200);
        expect(inWindow.length, `starts from ${start.at}`).toBeLessThanOrEqual(3);
      }
      // Nine starts at three per 2 s need three windows: the last opens 4 s after the first.
      expect(starts.at(-1)!.at - starts[0]!.at).toBeGreaterThanOrEqual(3500);
      // Grouped by window from the first start, every window full: the limit, not idleness.
      const windows = groupByWindow(starts, 2000);
      expect(windows.map((w) => w.length)).toEqual([3, 3, 3]);
      // Each window's starts span workers: one limit for the fleet, not one per worker. (Which
      // workers take the jobs is BullMQ's: on a loaded machine one may take none of the nine.)
      for (const window of windows)
        expect(new Set(window.map((s) => s.pid)).size).toBeGreaterThan(1);
    } finally {
      await stopAll(workers);
    }
  }, 120_000);

  it("a judge 429 with Retry-After: 2 on one worker pauses attempt starts on every worker", async () => {
    servedAt = [];
    const file = join(project.dir, "judge-marks.txt");
    const cwd = join(project.dir, "judged");
    const env = {
      NICEEVAL_JUDGE_BASE_URL: server.openaiBaseURL,
      NICEEVAL_JUDGE_MODEL: "loopback/judge",
    };
    const workers = await Promise.all(
      [0, 1, 2].map(() =>
        startWorker(cwd, redis.url, "judge", file, { args: ["--no-cache"], env }),
      ),
    );
    try {
      const run = await runCli(runArgs("judge", "judge.json"), cwd, env);
      expect(run.code, run.stderr).toBe(0);
      const report = JSON.parse(readFileSync(join(cwd, "judge.json"), "utf8")) as JsonReport;
      expect(report.records.map((r) => r.verdict)).toEqual(Array(JUDGED_CASES).fill("passed"));
      // One 429, then at least one answer per case (the turned-away call retried after its wait;
      // with both cores held by other processes a few more calls were seen, never fewer).
      expect(servedAt.length).toBeGreaterThanOrEqual(JUDGED_CASES + 1);
      const pushedBack = workers.filter((w) => w.stderr().includes("pushed back"));
      expect(pushedBack).toHaveLength(1);

      const rejectedAt = servedAt[0]!;
      const starts = readStarts(file);
      expect(starts).toHaveLength(JUDGED_CASES);
      // Unpaused, six slots would start rounds of 300 ms attempts at about +0, +0.3 and +0.6 s
      // after the 429. Those past their start may begin in the moment the pause takes to reach
      // Redis; from 0.3 s to 1.5 s after the 429 (of a 2 s pause) no worker starts one.
      const during = starts.filter((s) => s.at > rejectedAt + 300 && s.at < rejectedAt + 1500);
      expect(during, JSON.stringify({ rejectedAt, starts })).toEqual([]);
      // Work the pause held back ran after it (a pause of the pushed-back worker alone would
      // leave the other two to finish it all well before).
      const after = starts.filter((s) => s.at >= rejectedAt + 1500);
      expect(after.length).toBeGreaterThan(0);
    } finally {
      await stopAll(workers);
    }
  }, 120_000);
});

/** Windows of `ms` opened by the first start not in an earlier window (BullMQ's fixed windows). */
function groupByWindow(starts: readonly Start[], ms: number): Start[][] {
  const windows: Start[][] = [];
  let opened = Number.NEGATIVE_INFINITY;
  for (const start of starts) {
    if (start.at >= opened + ms - 300) {
      opened = start.at;
      windows.push([]);
    }
    windows.at(-1)!.push(start);
  }
  return windows;
}
