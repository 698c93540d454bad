import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/eval/record.js";
import { type FakeLlmServer, fake, startFakeLlmServer } from "../support/fake-llm-server.js";
import { fromCodeSource, helpfulJudgeSource } from "../support/judged-fixture.js";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";

// A target that points its own SDK elsewhere through the environment (`process.env.OPENAI_BASE_URL
// = …`, a key of its own): judges read those variables at each call, so the judge of that attempt
// and of every later one went to the target's endpoint (here a dead port: "could not be reached …
// check the base URL", after its retries). Judges now read them as the run found them once its
// eval files loaded: the eval file below sets the judge's base URL at its top level (as a dotenv
// it loads would), over the dead one the shell gives, and that one is kept.
const DEAD = "http://127.0.0.1:9/v1";

const suite = `
import { bindScorer, configureJudges, defineSuite, judgeFromModel } from "niceeval";
import { llmJudge } from "niceeval/scorers";

process.env.OPENAI_BASE_URL = process.env.FIXTURE_JUDGE_URL;
// A judge that cannot reach its endpoint says so at once rather than after its retries; each
// answer comes from the server, none from the cache.
configureJudges({ maxRetries: 0, cache: false });

export const agent = defineSuite({
  id: "agent",
  concurrency: 1,
  cases: [
    { id: "before", input: "before" },
    { id: "sets-env", input: "sets-env" },
    { id: "after", input: "after" },
  ],
  target: async (input) => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (input === "sets-env") {
      process.env.OPENAI_BASE_URL = "${DEAD}";
      process.env.OPENAI_API_KEY = "the-target's-own-key";
    }
    return "an answer to " + input;
  },
  scorers: ${helpfulJudgeSource},
});
`;

// Once the run is over, a judge resolved from code reads the environment as it is now.
const script = fromCodeSource(
  "agent",
  "./evals/agent.eval.js",
  'import { resolveJudge } from "niceeval";\nprocess.on("beforeExit", () => console.error("after the run: " + JSON.stringify(resolveJudge("openai/judge").target)));',
);

// A target that sets the key a judge needs only as it runs (a dotenv the code under test loads):
// the judge, which reads the environment as the run found it, says why it finds no key.
const lazyKey = `
import { bindScorer, defineSuite, judgeFromModel, runEvals } from "niceeval";
import { llmJudge } from "niceeval/scorers";
const lazy = defineSuite({
  id: "lazy-key",
  cases: [{ id: "a", input: "a" }],
  target: async (input) => {
    process.env.ANTHROPIC_API_KEY = "a key the target's dotenv loaded";
    return "an answer to " + input;
  },
  scorers: [
    bindScorer(
      llmJudge({
        id: "helpful",
        judge: judgeFromModel("anthropic/claude-haiku-4.5"),
        criteria: "Is it helpful?",
        mapOutput: ({ output }) => output,
      }),
    ),
  ],
});
const records = [];
await runEvals([{ eval: lazy }], { onRecord: (record) => records.push(record) });
console.log(JSON.stringify(records));
`;

const run = promisify(execFile);

let server: FakeLlmServer;
let project: FixtureProject;
let env: Record<string, string>;
beforeAll(async () => {
  server = await startFakeLlmServer({
    apiKey: "test-key",
    respond: () => fake.json({ value: 1, rationale: "the real judge" }),
  });
  project = await makeProject({
    "evals/agent.eval.js": suite,
    "from-code.mjs": script,
    "lazy-key.mjs": lazyKey,
  });
  env = {
    NICEEVAL_JUDGE_BASE_URL: "",
    OPENAI_API_KEY: "test-key",
    OPENAI_BASE_URL: DEAD,
    FIXTURE_JUDGE_URL: server.openaiBaseURL,
  };
});
afterAll(async () => {
  await server.close();
  await project.cleanup();
});

function expectJudgedByTheServer(records: readonly AttemptRecord[]): void {
  expect(records.map((r) => `${r.caseId}:${r.verdict}`)).toEqual([
    "before:passed",
    "sets-env:passed",
    "after:passed",
  ]);
  for (const record of records)
    expect(record.judgments.map((j) => j.reason)).toEqual(["the real judge"]);
}

describe("a target that sets OPENAI_BASE_URL and OPENAI_API_KEY for its own SDK (real judge server)", () => {
  for (const mode of [[], ["--no-supervise"]]) {
    const label = mode.length ? ` (${mode[0]})` : "";
    it(`judges every attempt where the run found the judge${label}`, async () => {
      const json = `report${mode.length}.json`;
      const cli = await runCli(["run", "--json", json, "--no-store", ...mode], project.dir, env);
      const report = JSON.parse(await readFile(join(project.dir, json), "utf8")) as {
        records: AttemptRecord[];
      };
      expectJudgedByTheServer(report.records);
      expect(cli.code).toBe(0);
    }, 60_000);
  }

  it("does the same in runEvals, and reads the environment as it is once the run is over", async () => {
    const { stdout, stderr } = await run(process.execPath, ["from-code.mjs"], {
      cwd: project.dir,
      env: { ...process.env, ...env },
    });
    expectJudgedByTheServer(JSON.parse(stdout) as AttemptRecord[]);
    expect(stderr).toContain(`after the run: {"provider":"openai-compatible@${DEAD}"`);
  }, 60_000);
});

describe("a target that sets the key its judge needs only as it runs (runEvals)", () => {
  it("leaves the judge unavailable, saying the code under test set the key after the run started", async () => {
    const { stdout } = await run(process.execPath, ["lazy-key.mjs"], {
      cwd: project.dir,
      env: { ...process.env, NICEEVAL_JUDGE_BASE_URL: "", ANTHROPIC_API_KEY: "" },
    });
    const [record] = JSON.parse(stdout) as AttemptRecord[];
    expect(record?.judgments.map((j) => j.state)).toEqual(["unavailable"]);
    expect(record?.judgments[0]?.reason).toContain(
      "ANTHROPIC_API_KEY is not set: set ANTHROPIC_API_KEY",
    );
    expect(record?.judgments[0]?.reason).toContain(
      "the code under test set ANTHROPIC_API_KEY while the run went on, but judges read the environment as the run found it once its eval files loaded",
    );
  }, 60_000);
});
