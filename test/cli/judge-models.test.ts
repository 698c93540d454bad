// Runs whose only difference is the model their judged scorers are built with: the run records
// the models (each eval's judgeModels and configuration hash), so `compare` warns and `--resume`
// refuses, in a supervised run (the CLI never imports the eval file) as in one in process.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Comparison } from "../../src/compare/types.js";
import { openSqliteStore } from "../../src/store/index.js";
import type { StoredRun } from "../../src/store/types.js";
import { killWhenStored } from "../resume/support.js";
import { type FakeLlmServer, fake, startFakeLlmServer } from "../support/fake-llm-server.js";
import { type FixtureProject, makeProject, runCli } from "../support/project.js";

// Both evals judge with JUDGE_MODEL: `helpful` through llmJudge(judgeFromModel(...)), `expected`
// through expectations(...) in a createScorer that names the model it calls.
const judgedEval = `
import { bindScorer, defineSuite, judgeFromModel } from "niceeval";
import { createScorer, expectations, llmJudge } from "niceeval/scorers";

const model = process.env.JUDGE_MODEL;
const cases = Array.from({ length: 20 }, (_, i) => ({ id: "case-" + i, input: "question " + i }));
const target = async (question) => {
  await new Promise((r) => setTimeout(r, Number(process.env.DELAY_MS ?? 0)));
  return { text: "the answer to " + question, calls: [] };
};

export const helpful = defineSuite({
  id: "helpful",
  concurrency: 2,
  cases,
  target,
  scorers: [
    bindScorer(
      llmJudge({
        id: "helpful",
        judge: judgeFromModel(model),
        criteria: "Does it answer the question?",
        mapOutput: ({ output }) => output.text,
      }),
    ),
  ],
});

export const expected = defineSuite({
  id: "expected",
  concurrency: 2,
  cases,
  target,
  scorers: [
    createScorer({
      name: "expectations",
      judgeModel: model,
      score: async ({ input, output }) => ({
        score: (await expectations(input, output, { should: ["answers the question"] }, model)).score,
      }),
    }),
  ],
});
`;

const schemaName = (body: Record<string, unknown>) =>
  (body.response_format as { json_schema?: { name?: string } } | undefined)?.json_schema?.name;

describe("a changed judge model, through the real CLI", { timeout: 180_000 }, () => {
  let project: FixtureProject;
  let server: FakeLlmServer;
  const cli = (args: string[], model: string, more: Record<string, string> = {}) =>
    runCli(args, project.dir, env(model, more));
  const env = (model: string, more: Record<string, string> = {}) => ({
    NICEEVAL_JUDGE_BASE_URL: server.openaiBaseURL,
    JUDGE_MODEL: model,
    ...more,
  });
  const runNamed = async (name: string, store = ".niceeval/niceeval.sqlite") => {
    const s = await openSqliteStore(join(project.dir, store));
    try {
      return (await s.listRuns()).find((r) => r.name === name) as StoredRun;
    } finally {
      await s.close();
    }
  };
  const byEval = (run: StoredRun) =>
    Object.fromEntries(run.evals.map((e) => [e.evalId, [e.configHash, e.judgeModels]]));

  beforeAll(async () => {
    project = await makeProject({ "evals/judged.eval.js": judgedEval });
    server = await startFakeLlmServer({
      respond: ({ body }) => {
        if (schemaName(body) === "expectation_checks")
          return fake.json({ checks: [{ id: 1, met: true, why: "it answers" }] });
        return fake.json({ value: 0.9, rationale: "it answers" });
      },
    });
  });
  afterAll(async () => {
    await server.close();
    await project.cleanup();
  });

  it("records the models, and compare warns that they differ", async () => {
    expect((await cli(["run", "--name", "judge-1", "--quiet"], "fake/judge-1")).code).toBe(0);
    expect((await cli(["run", "--name", "judge-2", "--quiet"], "fake/judge-2")).code).toBe(0);
    const here = await cli(["run", "--name", "here", "--no-supervise", "--quiet"], "fake/judge-1");
    expect(here.code).toBe(0);
    // Both judges were called, each by its own model string.
    const models = new Set(server.requests.map((r) => r.body.model));
    expect(models).toEqual(new Set(["fake/judge-1", "fake/judge-2"]));

    const [one, two, inProcess] = await Promise.all(
      ["judge-1", "judge-2", "here"].map((name) => runNamed(name)),
    );
    for (const id of ["helpful", "expected"]) {
      expect(byEval(one!)[id]![1]).toEqual(["fake/judge-1"]);
      expect(byEval(two!)[id]![1]).toEqual(["fake/judge-2"]);
      expect(byEval(one!)[id]![0]).not.toBe(byEval(two!)[id]![0]);
    }
    // The supervised run, whose evals the eval process described, records what one in process does.
    expect(byEval(inProcess!)).toEqual(byEval(one!));

    const compared = await runCli(["compare", "judge-1", "judge-2"], project.dir);
    expect(compared.code).toBe(0);
    for (const id of ["helpful", "expected"])
      expect(compared.stdout).toContain(
        `eval "${id}": the judge models differ between the runs (base fake/judge-1, head fake/judge-2)`,
      );
    const data = JSON.parse(
      (await runCli(["compare", "judge-1", "judge-2", "--json"], project.dir)).stdout,
    ) as Comparison;
    expect(
      data.warnings.filter((w) => w.kind === "judge-models").map((w) => [w.evalId, w.head]),
    ).toEqual([
      ["helpful", "fake/judge-2"],
      ["expected", "fake/judge-2"],
    ]);
    const same = JSON.parse(
      (await runCli(["compare", "judge-1", "here", "--json"], project.dir)).stdout,
    ) as Comparison;
    expect(same.warnings).toEqual([]);
  });

  it("refuses to resume a run with another judge model, naming it", async () => {
    const store = "killed.sqlite";
    const stored = await killWhenStored(
      ["run", "--name", "killed"],
      project.dir,
      store,
      6,
      env("fake/judge-1", { DELAY_MS: "40" }),
    );
    expect(stored).toBeLessThan(40);
    const refused = await cli(["run", "--resume", "--store", store], "fake/judge-2");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("evals changed since it started");
    expect(refused.stderr).toContain(
      "eval helpful's configuration (judge models fake/judge-1 → fake/judge-2)",
    );
    expect(refused.stderr).toContain(
      "eval expected's configuration (judge models fake/judge-1 → fake/judge-2)",
    );
    // With the model it started with, it resumes.
    const resumed = await cli(["run", "--resume", "--store", store], "fake/judge-1");
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("2 evals · 40 cases · 40 passed");
    expect((await runNamed("killed", store)).status).toBe("finished");
  });
});
