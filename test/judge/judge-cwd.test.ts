import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/eval/record.js";
import { type FakeLlmServer, fake, startFakeLlmServer } from "../support/fake-llm-server.js";
import { fromCodeSource, helpfulJudgeSource, judgeEnv } from "../support/judged-fixture.js";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";

// A target that changes directory (a coding agent working in a checkout), or works in a temporary
// directory it removes at the end: the judge cache was resolved against the current directory at
// each call, so it was written into the agent's directory, and once that directory was gone every
// judged scorer of the run threw "ENOENT: no such file or directory, uv_cwd". It is resolved
// against the directory the run started in.
const suite = `
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bindScorer, defineSuite, judgeFromModel } from "niceeval";
import { llmJudge } from "niceeval/scorers";

export const agent = defineSuite({
  id: "agent",
  concurrency: 1,
  cases: [
    { id: "moves", input: "moves" },
    { id: "removes", input: "removes" },
    { id: "after", input: "after" },
  ],
  target: async (input) => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (input === "moves") {
      mkdirSync("checkout", { recursive: true });
      process.chdir("checkout");
    }
    if (input === "removes") {
      const workspace = mkdtempSync(join(tmpdir(), "niceeval-agent-workspace-"));
      process.chdir(workspace);
      rmSync(workspace, { recursive: true });
    }
    return "an answer to " + input;
  },
  scorers: ${helpfulJudgeSource},
});
`;

const script = fromCodeSource("agent", "./evals/agent.eval.js");

const run = promisify(execFile);

let server: FakeLlmServer;
beforeAll(async () => {
  server = await startFakeLlmServer({
    respond: () => fake.json({ value: 1, rationale: "the real judge" }),
  });
});
afterAll(() => server.close());

async function expectJudgedAndCachedAtHome(
  dir: string,
  records: readonly AttemptRecord[],
): Promise<void> {
  expect(records.map((r) => `${r.caseId}:${r.verdict}`)).toEqual([
    "moves:passed",
    "removes:passed",
    "after:passed",
  ]);
  for (const record of records)
    expect(record.judgments.map((j) => j.reason)).toEqual(["the real judge"]);
  expect(existsSync(join(dir, "checkout/.niceeval"))).toBe(false);
  expect((await readdir(join(dir, ".niceeval/cache"))).length).toBeGreaterThan(0);
}

describe("a target that changes or removes the current directory, judged (real judge server)", () => {
  let project: FixtureProject;
  beforeAll(async () => {
    project = await makeProject({ "evals/agent.eval.js": suite, "from-code.mjs": script });
  });
  afterAll(() => project.cleanup());

  for (const mode of [[], ["--no-supervise"]]) {
    const label = mode.length ? ` (${mode[0]})` : "";
    it(`judges every attempt and keeps the cache where the run started${label}`, async () => {
      const json = `report${mode.length}.json`;
      const cli = await runCli(
        ["run", "--json", json, "--no-store", ...mode],
        project.dir,
        judgeEnv(server),
      );
      expect(cli.code).toBe(0);
      const report = JSON.parse(await readFile(join(project.dir, json), "utf8")) as {
        records: AttemptRecord[];
      };
      await expectJudgedAndCachedAtHome(project.dir, report.records);
    }, 60_000);
  }

  it("does the same in runEvals", async () => {
    const { stdout } = await run(process.execPath, ["from-code.mjs"], {
      cwd: project.dir,
      env: { ...process.env, ...judgeEnv(server) },
    });
    await expectJudgedAndCachedAtHome(project.dir, JSON.parse(stdout) as AttemptRecord[]);
  }, 60_000);
});
