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
