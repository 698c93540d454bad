import { addJudgeUsage, emptyJudgeUsage, type JudgeUsage } from "../eval/record.js";
import { callJudge, type JudgeSource, withOutputFloor } from "./call.js";
import type { JudgeChatRequest, JudgeChatResponse } from "./chat.js";
import { parseJsonAnswer } from "./parse-json.js";
import type { JudgeUnavailableKind } from "./unavailable.js";

/** Whether a parsed answer has the verdict's shape, and what is wrong when not. */
export type Checked<T> = { ok: true; value: T } | { ok: false; problem: string };

/** A verdict read from the judge, with what it took to get it (for audits). */
export type AskResult<T> =
  | { ok: true; value: T; answers: string[]; cached: boolean; usage: JudgeUsage }
  | { ok: false; kind: JudgeUnavailableKind; reason: string; answers: string[]; usage: JudgeUsage };

/**
 * Ask for a structured verdict: one call; a second (a repair turn that shows the judge its
 * answer and what was wrong) only when the first answer is not valid JSON of the right shape.
 * An answer still wrong after the repair is `malformed`, never a guessed verdict.
 */
export async function askForVerdict<T>(
  source: JudgeSource,
  request: JudgeChatRequest,
  check: (data: unknown) => Checked<T>,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<AskResult<T>> {
  const usage = emptyJudgeUsage();
  const answers: string[] = [];
  let conversation = request;
  let firstProblem = "";
  let cutOff = false;
  for (let turn = 0; turn < 2; turn++) {
    const call = await callJudge(source, conversation, {
      ...options,
      accept: (response) => readAnswer(response, check).ok,
      // The repaired answer is the answer to the question asked: cached as the first turn's.
      ...(turn === 1 ? { cacheAs: request } : {}),
    });
    addJudgeUsage(usage, call.usage);
    if (!call.ok) return { ok: false, kind: call.kind, reason: call.reason, answers, usage };
    answers.push(call.response.text);
    const checked = readAnswer(call.response, check);
    if (checked.ok) return { ok: true, value: checked.value, answers, cached: call.cached, usage };
    cutOff ||= call.response.cutOff === true;
    if (turn === 1) {
      return {
        ok: false,
        kind: "malformed",
        // The model is named by whoever reports this; the endpoint says which server answered so.
        reason: `the judge's answer from ${call.endpoint} was unusable twice (first: ${firstProblem}; after a repair turn: ${checked.problem})${cutOff ? outputLimitAdvice(request) : ""}`,
        answers,
        usage,
      };
    }
    firstProblem = checked.problem;
    conversation = {
      ...request,
      messages: [
        ...request.messages,
        { role: "assistant", content: quote(call.response.text) },
        {
          role: "user",
          content: `That answer cannot be used: ${checked.problem}. Answer again with only one JSON object that follows the schema "${request.answer.name}" exactly, nothing before or after it.`,
        },
      ],
    };
  }
  throw new Error("unreachable: askForVerdict makes at most two calls");
}

/** What to raise when the answers stopped at the output token limit. */
function outputLimitAdvice(request: JudgeChatRequest): string {
  const limit = withOutputFloor(request).maxOutputTokens;
  return `; the answers were cut off at ${limit} output tokens: raise it with configureJudges({ maxOutputTokens }) (a reasoning model spends its reasoning from it)`;
}

/** The repair turn quotes at most this much of the unusable answer. */
export const MAX_REPAIR_QUOTE_CHARS = 4000;

function quote(text: string): string {
  if (!text) return "(empty answer)";
  if (text.length <= MAX_REPAIR_QUOTE_CHARS) return text;
  return `${text.slice(0, MAX_REPAIR_QUOTE_CHARS)}…[cut ${text.length - MAX_REPAIR_QUOTE_CHARS} characters]`;
}

function readAnswer<T>(
  response: JudgeChatResponse,
  check: (data: unknown) => Checked<T>,
): Checked<T> {
  const checked = readData(response, check);
  // Cut off at the output token limit, the judge was not done, whatever of it parses.
  if (checked.ok && response.cutOff)
    return { ok: false, problem: `the verdict is incomplete (${response.ended})` };
  // Why it ended, when it did not end as an answer: the problem alone would hide it.
  return checked.ok || !response.ended
    ? checked
    : { ok: false, problem: `${checked.problem} (${response.ended})` };
}

function readData<T>(
  response: JudgeChatResponse,
  check: (data: unknown) => Checked<T>,
): Checked<T> {
  if (response.data !== undefined) return check(response.data);
  const parsed = parseJsonAnswer(response.text);
  if (!parsed.ok) return { ok: false, problem: `not valid JSON: ${parsed.error}` };
  return check(parsed.value);
}

/** A JSON Schema object whose properties are all required and closed (what strict modes demand). */
export function closedObject(properties: Record<string, unknown>): Record<string, unknown> {
  return {
    type: "object",
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
  };
}
