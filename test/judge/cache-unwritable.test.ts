// A judge cache folder that cannot be written (a file stands where it goes): the judgments stand,
// and the run says once that nothing was cached and what to do, instead of paying for every
// judge call again on each run without a word. Through the real CLI.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeLlmServer, fake, startFakeLlmServer } from "../support/fake-llm-server.js";
import { type FixtureProject, projectOfRepoFiles, runCli } from "../support/project.js";

describe("a judge cache that cannot be written", () => {
  let project: FixtureProject;
  let server: FakeLlmServer;

  beforeAll(async () => {
    project = await projectOfRepoFiles([
      "examples/agent/agent.ts",
      "examples/judged/judged.eval.ts",
    ]);
    server = await startFakeLlmServer({
      respond: (request) => {
        const name =
          (request.body.response_format as { json_schema?: { name?: string } } | undefined)
            ?.json_schema?.name ?? "";
        if (name === "expectation_checks") {
          const text = (request.body.messages as { content: string }[])
            .map((m) => m.content)
            .join("\n");
          const count = Number(/## Requirements \((\d+)\)/.exec(text)?.[1]);
          return fake.json({
            checks: Array.from({ length: count }, (_, i) => ({ id: i + 1, met: true, why: "ok" })),
          });
        }
        if (name === "judge_verdict") return fake.json({ value: 0.9, rationale: "clear" });
        return fake.json({ verdict: "satisfied", reason: "states 88.00 EUR" });
      },
    });
    await mkdir(join(project.dir, ".niceeval"), { recursive: true });
    await writeFile(join(project.dir, ".niceeval/cache"), "not a folder\n");
  });
  afterAll(async () => {
    await server.close();
    await project.cleanup();
  });

  it("scores the run and says once that the answers were not cached, and why", async () => {
    const run = await runCli(["run", "examples/judged", "--no-store"], project.dir, {
      NICEEVAL_JUDGE_BASE_URL: server.openaiBaseURL,
      NICEEVAL_JUDGE_MODEL: "loopback/judge",
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/judge: 5 calls, 0 cached/);
    const said = run.stderr.match(/judge answers cannot be cached in/g) ?? [];
    expect(said).toHaveLength(1);
    expect(run.stderr).toContain(join(project.dir, ".niceeval/cache"));
    expect(run.stderr).toContain("configureJudges({ cacheDir })");
  });
});
