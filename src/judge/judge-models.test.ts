// The judge models an eval's scorers are built with become part of what a run records: the
// eval's fingerprint (so its configuration hash) and the manifest's judgeModels, in process and
// as the eval process describes it to a supervised run's CLI.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isolateJudges } from "../../test/judge/judge-env.js";
import { defineAdapter } from "../adapter/define-adapter.js";
import { buildManifest } from "../cli/manifest.js";
import type { Runnable } from "../eval/runnable.js";
import { bindScorer, defineSuite, type SuiteScorer } from "../eval/suite.js";
import { createScorer } from "../scorers/create-scorer.js";
import { llmJudge } from "../scorers/judged/llm-judge.js";
import { makeOutlineFidelityDriver } from "../scorers/style/outline-fidelity.js";
import { makeStylePairwiseDriver, stylePairwiseTool } from "../scorers/style/style-pairwise.js";
import { wrapScorer } from "../scorers/wrap-scorer.js";
import { describeEvals } from "../supervisor/case-server.js";
import { createCloseQAJudge } from "./close-qa.js";
import { configureJudges } from "./config.js";
import { judgeFromModel } from "./judge-from-model.js";
import { judgeModelsOf, modelList } from "./judge-models.js";
import { setDefaultCloseQAJudge } from "./registry.js";
import type { JudgeFn } from "./types.js";

let env: Awaited<ReturnType<typeof isolateJudges>>;
beforeEach(async () => {
  env = await isolateJudges();
});
afterEach(async () => {
  setDefaultCloseQAJudge(undefined);
  await env.cleanup();
});

type Answer = { text: string };
const own: JudgeFn = async () => ({ value: 1 });

const helpful = (judge: JudgeFn) =>
  bindScorer(
    llmJudge<Answer>({
      id: "helpful",
      judge,
      criteria: "Is it helpful?",
      mapOutput: ({ output }) => output.text,
    }),
  );

const suite = (...scorers: SuiteScorer<string, Answer>[]) =>
  defineSuite<string, Answer>({
    id: "s",
    cases: [{ input: "q" }],
    target: (input) => ({ text: input }),
    scorers,
  });

const manifestOf = (...evals: Runnable[]) =>
  buildManifest({
    runId: "r",
    cwd: process.cwd(),
    git: undefined,
    entries: evals.map((e) => ({ eval: e })),
    files: [],
    argv: [],
    tags: {},
    trials: 1,
    concurrency: 1,
    niceevalVersion: "0",
    judgeModels: [],
  }).evals[0]!;

describe("judges built on a model", () => {
  it("carry it: judgeFromModel, createCloseQAJudge; a JudgeFn of the user's own carries none", () => {
    expect(judgeModelsOf(judgeFromModel("fake/judge-1"))).toEqual(["fake/judge-1"]);
    expect(judgeModelsOf(createCloseQAJudge("fake/qa"))).toEqual(["fake/qa"]);
    expect(judgeModelsOf(own)).toEqual([]);
    expect(modelList([])).toBe("none");
    expect(modelList(["b", "a", "b"])).toBe("a, b");
  });
});

describe("a suite", () => {
  it("records the model its llmJudge judges with: fingerprint, judgeModels and configuration hash", () => {
    const one = suite(helpful(judgeFromModel("fake/judge-1")));
    const two = suite(helpful(judgeFromModel("fake/judge-2")));
    expect(one.judgeModels?.()).toEqual(["fake/judge-1"]);
    expect(one.fingerprint?.()).toMatchObject({
      scorers: [{ id: "helpful", tool: "eval.llm-judge", judgeModels: ["fake/judge-1"] }],
    });
    const [a, b] = [manifestOf(one), manifestOf(two)];
    expect(a.judgeModels).toEqual(["fake/judge-1"]);
    expect(b.judgeModels).toEqual(["fake/judge-2"]);
    expect(a.configHash).not.toBe(b.configHash);
    expect(manifestOf(suite(helpful(judgeFromModel("fake/judge-1")))).configHash).toBe(
      a.configHash,
    );
  });

  it("records the models of the pairwise and outline drivers", () => {
    const pairwise = bindScorer({
      id: "pairwise",
      tool: stylePairwiseTool,
      driver: makeStylePairwiseDriver(judgeFromModel("fake/pairwise")),
      mapInput: ({ output }: { output: Answer }) => ({
        reference: "r",
        a: output.text,
        b: "b",
        criteria: "c",
      }),
    });
    const outline = makeOutlineFidelityDriver(judgeFromModel("fake/outline"));
    expect(judgeModelsOf(outline)).toEqual(["fake/outline"]);
    const s = suite(pairwise, helpful(judgeFromModel("fake/judge-1")));
    expect(s.judgeModels?.()).toEqual(["fake/judge-1", "fake/pairwise"]);
    expect(manifestOf(s).judgeModels).toEqual(["fake/judge-1", "fake/pairwise"]);
  });

  it("records what a createScorer names in `judgeModel` (and wrapScorer keeps it); a model only known when called stays unknown", () => {
    const judged = (model: string) =>
      createScorer<Answer>({
        name: "expectations",
        judgeModel: model,
        score: () => ({ score: 1 }),
      });
    expect(suite(judged("fake/judge-1")).judgeModels?.()).toEqual(["fake/judge-1"]);
    expect(manifestOf(suite(judged("fake/judge-1"))).configHash).not.toBe(
      manifestOf(suite(judged("fake/judge-2"))).configHash,
    );
    const listed = createScorer<Answer>({
      name: "two",
      judgeModel: ["fake/b", "fake/a"],
      score: () => ({ score: 1 }),
    });
    expect(judgeModelsOf(listed)).toEqual(["fake/a", "fake/b"]);
    const fromFactory = createScorer<Answer>(() => ({
      name: "made",
      judgeModel: "fake/made",
      score: () => ({ score: 1 }),
    }));
    expect(judgeModelsOf(fromFactory)).toEqual(["fake/made"]);
    expect(judgeModelsOf(wrapScorer(judged("fake/inner"), { output: (o: Answer) => o }))).toEqual([
      "fake/inner",
    ]);
    expect(() =>
      createScorer({ name: "bad", judgeModel: 3 as never, score: () => ({ score: 1 }) }),
    ).toThrow(/`judgeModel` must be a model string/);
    expect(() =>
      createScorer({ name: "typo", judgeModels: "fake/x", score: () => ({ score: 1 }) } as never),
    ).toThrow(/judgeModel/);

    // A JudgeFn of the user's own names no model: the fingerprint is the one it always was.
    const unknown = suite(helpful(own));
    expect(unknown.judgeModels?.()).toEqual([]);
    expect(unknown.fingerprint?.()).toEqual({
      style: "suite",
      scorers: [{ id: "helpful", tool: "eval.llm-judge" }],
      threshold: 0.5,
      gates: null,
      timeoutMs: null,
    });
  });

  it("adds the run's default judge models to every eval's", () => {
    const s = suite(helpful(judgeFromModel("fake/judge-1")));
    const entry = buildManifest({
      runId: "r",
      cwd: process.cwd(),
      git: undefined,
      entries: [{ eval: s }],
      files: [],
      argv: [],
      tags: {},
      trials: 1,
      concurrency: 1,
      niceevalVersion: "0",
      judgeModels: ["fake/default"],
    }).evals[0]!;
    expect(entry.judgeModels).toEqual(["fake/default", "fake/judge-1"]);
  });
});

describe("a score eval", () => {
  it("records the model of its own closeQA judge", () => {
    const adapter = defineAdapter({ name: "app", create: () => ({}) });
    const scoreEval = (judge: ReturnType<typeof createCloseQAJudge>) =>
      adapter.defineScoreEval({ description: "answers", judge, test: () => {} });
    const one = scoreEval(createCloseQAJudge("fake/qa-1"));
    expect(one.judgeModels?.()).toEqual(["fake/qa-1"]);
    expect(one.fingerprint?.()).toMatchObject({ judge: "fake/qa-1" });
    expect(manifestOf(one).configHash).not.toBe(
      manifestOf(scoreEval(createCloseQAJudge("fake/qa-2"))).configHash,
    );
  });
});

describe("the eval process's description of its evals (supervised runs)", () => {
  it("holds each eval's judge models and the defaults set where the eval files load", () => {
    const s = suite(helpful(judgeFromModel("fake/judge-1")));
    expect(describeEvals([{ eval: s }])[0]!.judgeModels).toEqual(["fake/judge-1"]);
    expect(describeEvals([{ eval: suite(helpful(own)) }])[0]).not.toHaveProperty("judgeModels");
    configureJudges({ closeQAModel: "fake/close-qa" });
    setDefaultCloseQAJudge(createCloseQAJudge("fake/default-judge"));
    expect(describeEvals([{ eval: s }])[0]!.judgeModels).toEqual([
      "fake/close-qa",
      "fake/default-judge",
      "fake/judge-1",
    ]);
  });
});
