import type { FakeLlmServer } from "./fake-llm-server.js";

/**
 * Source text of an eval file's `scorers` entry: one llmJudge gate ("helpful") asked of the model
 * `openai/judge`, which {@link judgeEnv} points at a fake server. The file imports
 * `bindScorer`, `judgeFromModel` (niceeval) and `llmJudge` (niceeval/scorers).
 */
export const helpfulJudgeSource = `[
    bindScorer(
      llmJudge({
        id: "helpful",
        judge: judgeFromModel("openai/judge"),
        criteria: "Is it helpful?",
        mapOutput: ({ output }) => output,
      }),
    ),
  ]`;

/** Source of a script that runs `name` from `file` through runEvals and prints its records as JSON. */
export function fromCodeSource(name: string, file: string, setup = ""): string {
  return `
import { configureJudges, runEvals } from "niceeval";
import { ${name} } from "${file}";
${setup}
const records = [];
await runEvals([{ eval: ${name} }], { onRecord: (record) => records.push(record) });
console.log(JSON.stringify(records));
`;
}

/** The environment that sends `openai/…` judges to `server`. */
export function judgeEnv(server: FakeLlmServer): Record<string, string> {
  return { NICEEVAL_JUDGE_BASE_URL: server.openaiBaseURL, OPENAI_API_KEY: "test-key" };
}
