import { askForVerdict, type Checked, closedObject } from "./ask.js";
import { type JudgeSource, judgeSourceName, requireJudgeSource } from "./call.js";
import type { JudgeAnswerSchema, JudgeChatRequest } from "./chat.js";
import { withJudgeModels } from "./judge-models.js";
import { markJudgePossible } from "./ledger.js";
import type { JsonValue, JudgeFn, JudgeVerdict } from "./types.js";
import { JudgeUnavailableError } from "./unavailable.js";

const verdictAnswer: JudgeAnswerSchema = {
  name: "judge_verdict",
  description: "How well the output meets the criteria, from 0 to 1, and why.",
  schema: closedObject({
    value: {
      type: "number",
      description: "0 = does not meet the criteria at all, 1 = fully meets them.",
    },
    rationale: { type: "string", description: "One or two sentences of evidence from the output." },
  }),
};

const SYSTEM = [
  "You are an impartial judge. Rate how well an output meets the given criteria, from 0 (not at all) to 1 (fully), using only the output (and the expected answer when one is given).",
  'Answer with one JSON object and nothing else: {"value": <number from 0 to 1>, "rationale": "<why>"}.',
].join("\n");

/** The request {@link judgeFromModel} sends for one verdict. */
export function verdictRequest(args: {
  output: JsonValue;
  criteria: string;
  expected?: JsonValue | undefined;
}): JudgeChatRequest {
  const sections = [`## Criteria\n${args.criteria}`, `## Output\n${asText(args.output)}`];
  if (args.expected !== undefined) sections.push(`## Expected\n${asText(args.expected)}`);
  return {
    system: SYSTEM,
    messages: [{ role: "user", content: sections.join("\n\n") }],
    answer: verdictAnswer,
    temperature: 0,
    maxOutputTokens: 400,
  };
}

/**
 * A {@link JudgeFn} backed by a model string (resolved like every judge model) or a provider.
 * An out-of-range or missing value gets one repair turn; a judge that cannot decide throws
 * JudgeUnavailableError, which runners report as unavailable.
 * @example
 * const judge = judgeFromModel("openai/gpt-4.1-mini");
 * bindScorer(llmJudge<Answer>({ id: "helpful", judge, criteria: "Is it helpful?", mapOutput: ({ output }) => output.text }));
 */
export function judgeFromModel(model: JudgeSource): JudgeFn {
  requireJudgeSource("judgeFromModel", "model", model);
  markJudgePossible();
  const name = judgeSourceName(model);
  const judge: JudgeFn = async (args) => {
    const { signal } = args;
    const answer = await askForVerdict(
      model,
      verdictRequest(args),
      checkVerdict,
      signal ? { signal } : {},
    );
    if (!answer.ok) throw new JudgeUnavailableError(answer.kind, name, answer.reason);
    return answer.value;
  };
  // The scorers built on it record the model with their eval (judge-models.ts).
  return withJudgeModels(judge, [name]);
}

function checkVerdict(data: unknown): Checked<JudgeVerdict> {
  const { value, rationale } = (data ?? {}) as { value?: unknown; rationale?: unknown };
  if (typeof value !== "number" || !Number.isFinite(value)) {
    return {
      ok: false,
      problem: `"value" must be a number from 0 to 1, got ${JSON.stringify(value)}`,
    };
  }
  if (value < 0 || value > 1)
    return { ok: false, problem: `"value" must be from 0 to 1, got ${value}` };
  return { ok: true, value: typeof rationale === "string" ? { value, rationale } : { value } };
}

function asText(value: JsonValue): string {
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}
