import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/eval/record.js";
import { openSqliteStore } from "../../src/store/index.js";
import { type FakeLlmServer, fake, startFakeLlmServer } from "../support/fake-llm-server.js";
import { fromCodeSource, helpfulJudgeSource, judgeEnv } from "../support/judged-fixture.js";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";

// A target that mocks its model by replacing globalThis.fetch, and never puts it back: the judge
// of that attempt, and of every attempt after it, was answered by the target's mock (a verdict
// of 0, stored in the judge cache too), so the run's results were silently wrong. The judge now
// calls the fetch the run found as it started, and the attempt is errored naming the replacement.
const suite = `
import { bindScorer, defineSuite, judgeFromModel } from "niceeval";
import { llmJudge } from "niceeval/scorers";

const mocked = () =>
  new Response(
    JSON.stringify({
      choices: [{ message: { role: "assistant", content: JSON.stringify({ value: 0, rationale: "the target's mock" }) }, finish_reason: "stop" }],
      usage: { prompt_tokens: 1, completion_tokens: 1 },
    }),
    { headers: { "content-type": "application/json" } },
  );

export const judged = defineSuite({
  id: "judged",
  concurrency: 1,
  cases: [
    { id: "before", input: "a" },
    { id: "mocks-fetch", input: "mock" },
    { id: "after", input: "b" },
  ],
  target: async (input) => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (input === "mock") globalThis.fetch = async () => mocked();
    return "an answer to " + input;
  },
  scorers: ${helpfulJudgeSource},
});
`;

// The same suite run from code, through runEvals.
const script = fromCodeSource(
  "judged",
  "./evals/judged.eval.js",
  "configureJudges({ cache: false });",
);

const run = promisify(execFile);

interface JsonReport {
  records: AttemptRecord[];
}

let server: FakeLlmServer;
let project: FixtureProject;
beforeAll(async () => {
  server = await startFakeLlmServer({
    // Both a llmJudge verdict and a t.closeQA one.
    respond: () =>
      fake.json({
        value: 1,
        rationale: "the real judge",
        verdict: "satisfied",
        reason: "the real judge",
      }),
  });
  project = await makeProject({ "evals/judged.eval.js": suite, "from-code.mjs": script });
});
afterAll(async () => {
  await server.close();
  await project.cleanup();
});

function expectJudgedByTheServer(records: readonly AttemptRecord[]): void {
  const byId = new Map(records.map((r) => [r.caseId, r]));
  expect(records.map((r) => `${r.caseId}:${r.verdict}`).sort()).toEqual([
    "after:passed",
    "before:passed",
    "mocks-fetch:errored",
  ]);
  expect(byId.get("mocks-fetch")?.error?.message).toContain(
    "the code under test replaced fetch while this attempt ran",
  );
  for (const record of records) {
    for (const judgment of record.judgments) expect(judgment.reason).toContain("the real judge");
  }
}

describe("a target that replaces globalThis.fetch and leaves it (real CLI, real judge server)", () => {
  for (const mode of [[], ["--no-supervise"]]) {
    const label = mode.length ? ` (${mode[0]})` : "";
    it(`judges every attempt through the run's fetch and errors the one that replaced it${label}`, async () => {
      const store = `store${mode.length}.sqlite`;
      const json = `report${mode.length}.json`;
      const cli = await runCli(
        ["run", "--json", json, "--store", store, "--no-cache", ...mode],
        project.dir,
        judgeEnv(server),
      );
      expect(cli.code).toBe(1);
      const report = JSON.parse(await readFile(join(project.dir, json), "utf8")) as JsonReport;
      expectJudgedByTheServer(report.records);
      const opened = await openSqliteStore(join(project.dir, store));
      try {
        const [stored] = await opened.listRuns({ limit: 1 });
        expect(stored?.totals).toMatchObject({ attempts: 3, passed: 2, errored: 1 });
      } finally {
        await opened.close();
      }
    }, 60_000);
  }

  it("does the same in runEvals", async () => {
    const { stdout } = await run(process.execPath, ["from-code.mjs"], {
      cwd: project.dir,
      env: { ...process.env, ...judgeEnv(server) },
    });
    expectJudgedByTheServer(JSON.parse(stdout) as AttemptRecord[]);
  }, 60_000);
});

// A score eval's test that mocks fetch around its own code and puts it back in a finally: the
// t.closeQA judge it asks meanwhile went to the mock.
const closeQAScript = `
import { configureJudges, createCloseQAJudge, defineAdapter, runEvals } from "niceeval";
configureJudges({ cache: false });
const mocked = async () =>
  new Response(
    JSON.stringify({
      choices: [{ message: { role: "assistant", content: JSON.stringify({ verdict: "not-satisfied", reason: "the target's mock" }) }, finish_reason: "stop" }],
      usage: { prompt_tokens: 1, completion_tokens: 1 },
    }),
    { headers: { "content-type": "application/json" } },
  );
const desk = defineAdapter({ name: "Desk", create: async () => ({ reply: "Refund of 88 EUR" }), assertions: () => ({}) });
const refund = desk.defineScoreEval({
  description: "refund",
  judge: createCloseQAJudge("openai/judge"),
  test: async (t) => {
    const real = globalThis.fetch;
    globalThis.fetch = mocked;
    try {
      t.closeQA("Refund of 88 EUR", "Is a refund stated?");
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      globalThis.fetch = real;
    }
  },
});
const records = [];
await runEvals([{ eval: refund }], { onRecord: (record) => records.push(record) });
console.log(JSON.stringify(records));
`;

describe("a score eval whose test mocks fetch and puts it back in a finally (runEvals)", () => {
  it("asks its t.closeQA judge through the run's fetch, not the mock", async () => {
    const dir = await makeProject({ "close-qa.mjs": closeQAScript });
    try {
      const { stdout } = await run(process.execPath, ["close-qa.mjs"], {
        cwd: dir.dir,
        env: { ...process.env, ...judgeEnv(server) },
      });
      const [record] = JSON.parse(stdout) as AttemptRecord[];
      expect(record?.verdict).toBe("passed");
      expect(record?.judgments.map((j) => [j.state, j.reason])).toEqual([
        ["matched", expect.stringContaining("the real judge")],
      ]);
    } finally {
      await dir.cleanup();
    }
  }, 60_000);
});

// Each target mocks its model through globalThis.fetch for the length of the attempt, as a test
// does, and puts it back in a finally: the call it makes after its first await must reach its
// mock (port 9 on loopback refuses it otherwise), and the attempt is not errored.
const mocksAround = `
import { defineSuite } from "niceeval";
import { createScorer } from "niceeval/scorers";
const same = createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) });
export const s = defineSuite({
  id: "mocks-around",
  cases: Array.from({ length: 6 }, (_, i) => ({ id: "c" + i, input: i, expected: "from the mock " + i })),
  target: async (i) => {
    const real = globalThis.fetch;
    globalThis.fetch = async () => new Response("from the mock " + i);
    try {
      await new Promise((resolve) => setTimeout(resolve, 5));
      const response = await fetch("http://127.0.0.1:9/model");
      return await response.text();
    } finally {
      globalThis.fetch = real;
    }
  },
  scorers: [same],
});
`;

describe("a target that mocks fetch while it runs and puts it back in a finally (real CLI)", () => {
  for (const mode of [[], ["--no-supervise"]]) {
    const label = mode.length ? ` (${mode[0]})` : "";
    it(`keeps its mock until the attempt ends and passes every case${label}`, async () => {
      const dir = await makeProject({ "evals/around.eval.js": mocksAround });
      try {
        const cli = await runCli(
          ["run", "--json", "report.json", "--no-store", "--concurrency", "1", ...mode],
          dir.dir,
        );
        const report = JSON.parse(
          await readFile(join(dir.dir, "report.json"), "utf8"),
        ) as JsonReport;
        expect(
          report.records.map((r) => `${r.caseId}:${r.verdict}:${r.error?.message ?? ""}`),
        ).toEqual(Array.from({ length: 6 }, (_, i) => `c${i}:passed:`));
        expect(cli.code).toBe(0);
      } finally {
        await dir.cleanup();
      }
    }, 60_000);
  }
});
