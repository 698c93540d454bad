import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeLlmServer, fake, startFakeLlmServer } from "../support/fake-llm-server.js";
import { type FixtureProject, projectOfRepoFiles, runCli } from "../support/project.js";

const schemaName = (body: Record<string, unknown>) =>
  (body.response_format as { json_schema?: { name?: string } } | undefined)?.json_schema?.name ??
  "";

describe("examples/judged through the CLI", () => {
  let project: FixtureProject;
  let server: FakeLlmServer;

  beforeAll(async () => {
    project = await projectOfRepoFiles([
      "examples/agent/agent.ts",
      "examples/judged/judged.eval.ts",
    ]);
    server = await startFakeLlmServer({
      respond: (request) => {
        const name = schemaName(request.body);
        if (name === "expectation_checks") {
          const messages = request.body.messages as { content: string }[];
          const count = Number(
            /## Requirements \((\d+)\)/.exec(messages.map((m) => m.content).join("\n"))?.[1],
          );
          return fake.json({
            checks: Array.from({ length: count }, (_, i) => ({
              id: i + 1,
              met: true,
              why: "shown in the reply",
            })),
          });
        }
        if (name === "judge_verdict")
          return fake.json({ value: 0.9, rationale: "clear and grounded" });
        if (name === "close_qa_verdict")
          return fake.json({ verdict: "satisfied", reason: "states 88.00 EUR" });
        return fake.serverError();
      },
    });
  });
  afterAll(async () => {
    await server.close();
    await project.cleanup();
  });

  it("reports every judged score as unavailable, with the variable to set, when no judge is configured", async () => {
    const run = await runCli(["run", "examples/judged"], project.dir, { ANTHROPIC_API_KEY: "" });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("? expectations (1 pt) —/1");
    expect(run.stdout).toContain("set ANTHROPIC_API_KEY");
    expect(run.stdout).toContain("? Refund stated (10 pts) —/10 — judge-unconfigured");
    expect(run.stdout).toContain("judge: no judge calls");
    expect(server.requests).toHaveLength(0);
  });

  it("scores fully with a judge configured, then answers again from the cache", async () => {
    const env = {
      NICEEVAL_JUDGE_BASE_URL: server.openaiBaseURL,
      NICEEVAL_JUDGE_MODEL: "loopback/judge",
    };
    const first = await runCli(["run", "examples/judged"], project.dir, env);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/✓ lost-parcel passed · 2\.9\/3 complete/);
    expect(first.stdout).toMatch(
      /✓ expectations \(1 pt\) 1\/1 — 1 >= threshold 0\.5: all 3 expectations met/,
    );
    expect(first.stdout).toMatch(/✓ Refund stated \(10 pts\) 10\/10/);
    expect(first.stdout).toMatch(/judge: 5 calls, 0 cached/);
    // Per eval too: the suite made four calls (two cases × two judged scorers), closeQA one.
    expect(first.stdout).toMatch(/2 cases: 2 passed.* · judge: 4 calls, 0 cached/);
    expect(first.stdout).toMatch(/1 case: 1 passed.* · judge: 1 call, 0 cached/);
    const calls = server.requests.length;
    expect(calls).toBe(5);

    const second = await runCli(["run", "examples/judged"], project.dir, env);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/judge: 0 calls, 5 cached/);
    expect(second.stdout).toContain("[cached]");
    expect(server.requests.length).toBe(calls);

    const bypass = await runCli(["run", "examples/judged", "--no-cache"], project.dir, env);
    expect(bypass.code).toBe(0);
    expect(server.requests.length).toBe(calls + 5);
  });
});
