import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const dist = fileURLToPath(new URL("../../dist/index.js", import.meta.url));

// A fresh process: whether the ledger's AsyncLocalStorage exists is process-wide state.
function inFreshProcess(script: string): unknown {
  const env = { ...process.env };
  for (const name of [
    "NICEEVAL_JUDGE_MODEL",
    "NICEEVAL_JUDGE_BASE_URL",
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
  ])
    delete env[name];
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
    env,
    encoding: "utf8",
  });
  return JSON.parse(out);
}

const prelude = `
const n = await import(${JSON.stringify(dist)});
const state = () => globalThis[Symbol.for("niceeval.judge.ledger-state")];
const suite = n.defineSuite({
  id: "plain",
  cases: [{ id: "a", input: "a", expected: "a" }],
  target: async (input) => input,
  scorers: [n.createScorer({ name: "same", score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }) })],
});
`;

it("builds no AsyncLocalStorage while no judge can be called", () => {
  const result = inFreshProcess(`${prelude}
const report = await n.runEval(suite);
console.log(JSON.stringify({ passed: report.passedCount, storage: state().storage !== undefined }));
`);
  expect(result).toEqual({ passed: 1, storage: false });
});

it("tracks judge usage per ledger once a judge is possible", () => {
  const result = inFreshProcess(`${prelude}
n.openAICompatibleProvider({ baseURL: "http://127.0.0.1:9/v1" });
const outer = await n.withJudgeLedger(async () => {
  const inner = await n.withJudgeLedger(async () => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    n.recordJudgeUsage({ calls: 1, inputTokens: 7 });
  });
  return inner.usage.inputTokens;
});
console.log(JSON.stringify({ inner: outer.result, outer: outer.usage.inputTokens, storage: state().storage !== undefined }));
`);
  expect(result).toEqual({ inner: 7, outer: 7, storage: true });
});

it("a judge named by the environment counts as possible", () => {
  const result = inFreshProcess(`
process.env.NICEEVAL_JUDGE_BASE_URL = "http://127.0.0.1:9/v1";
${prelude}
await n.withJudgeLedger(async () => {});
console.log(JSON.stringify({ storage: state().storage !== undefined }));
`);
  expect(result).toEqual({ storage: true });
});

const scorers = fileURLToPath(new URL("../../dist/scorers/index.js", import.meta.url));

it("a judge named by the environment does not start the ledgers of a run whose scorers are niceeval's deterministic tools", () => {
  // A developer's shell holds OPENAI_API_KEY: the run must not pay for judge tracking it cannot use.
  const result = inFreshProcess(`
process.env.OPENAI_API_KEY = "sk-in-the-shell";
process.env.NICEEVAL_JUDGE_MODEL = "openai/gpt-4.1-mini";
const n = await import(${JSON.stringify(dist)});
const s = await import(${JSON.stringify(scorers)});
const state = () => globalThis[Symbol.for("niceeval.judge.ledger-state")];
const suite = n.defineSuite({
  id: "deterministic",
  cases: Array.from({ length: 200 }, (_, i) => ({ id: "c" + i, input: i, expected: "answer-" + i })),
  target: async (i) => "answer-" + i,
  scorers: [
    n.bindScorer({ id: "exact", tool: s.exactMatchTool, driver: s.evalScorersProvider, mapInput: ({ output, expected }) => ({ actual: output, expected }) }),
    n.bindScorer({ id: "style", tool: s.textStatsTool, driver: s.styleScorersProvider, mapInput: ({ output }) => ({ text: output }) }),
  ],
});
await new Promise((resolve) => setTimeout(resolve, 1100)); // past the once-a-second read of the environment
const report = await n.runEval(suite);
console.log(JSON.stringify({ judged: report.passedCount + report.failedCount, storage: state().storage !== undefined }));
`);
  expect(result).toEqual({ judged: 200, storage: false });
});

it("a judge named by the environment starts the ledgers once a score eval's test could ask it", () => {
  const result = inFreshProcess(`
process.env.OPENAI_API_KEY = "sk-in-the-shell";
const n = await import(${JSON.stringify(dist)});
const state = () => globalThis[Symbol.for("niceeval.judge.ledger-state")];
const before = await n.withJudgeLedger(async () => state().storage !== undefined);
const app = n.defineAdapter({ name: "app", create: async () => ({ reply: "hi" }) });
app.defineScoreEval({ description: "replies", test: async () => {} });
await new Promise((resolve) => setTimeout(resolve, 1100));
const after = await n.withJudgeLedger(async () => state().storage !== undefined);
console.log(JSON.stringify({ before: before.result, after: after.result }));
`);
  expect(result).toEqual({ before: false, after: true });
});
