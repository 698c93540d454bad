import { closedObject } from "../../judge/ask.js";
import type { JudgeAnswerSchema, JudgeChatRequest } from "../../judge/chat.js";
import type { AgentRun } from "../deterministic/calls.js";

/** One line to judge, phrased as a requirement. */
export interface ExpectationLine {
  kind: "should" | "should not";
  text: string;
}

// Tool inputs and outputs can be huge; the judge sees the start of each, marked as cut.
const MAX_VALUE_CHARS = 4000;

export const checksAnswer: JudgeAnswerSchema = {
  name: "expectation_checks",
  description: "One check per numbered requirement, in order: whether the run met it and why.",
  schema: closedObject({
    checks: {
      type: "array",
      items: closedObject({
        id: { type: "integer", description: "The requirement's number." },
        met: { type: "boolean", description: "true when the run met the requirement." },
        why: { type: "string", description: "One sentence of evidence from the run." },
      }),
    },
  }),
};

const SYSTEM = [
  "You are an impartial judge of an AI agent's run. You are given what the agent was asked, the context, its reply and the tools it called, and a numbered list of requirements.",
  "Judge every requirement on its own, only from the evidence shown. A requirement phrased 'should not' is met when the agent did not do that thing. When the evidence does not show that a 'should' requirement was met, it is not met.",
  'Answer with one JSON object and nothing else: {"checks":[{"id":1,"met":true,"why":"…"}, …]} with exactly one entry per requirement, in the given order, where "met" is a JSON boolean (true or false, not a string).',
].join("\n");

/** Build the one request that judges every line. */
export function expectationsRequest(
  prompt: string,
  result: AgentRun,
  situation: string | undefined,
  purpose: string | undefined,
  lines: readonly ExpectationLine[],
): JudgeChatRequest {
  const sections: string[] = [];
  if (purpose) sections.push(`## The agent's purpose\n${purpose}`);
  if (situation) sections.push(`## The situation at the time\n${situation}`);
  sections.push(`## What the agent was asked\n${prompt}`);
  sections.push(`## The agent's reply\n${result.text?.trim() ? result.text : "(no text reply)"}`);
  sections.push(`## Tool calls, in order\n${describeCalls(result)}`);
  const numbered = lines.map((line, index) => `${index + 1}. The agent ${line.kind}: ${line.text}`);
  sections.push(`## Requirements (${lines.length})\n${numbered.join("\n")}`);
  return {
    system: SYSTEM,
    messages: [{ role: "user", content: sections.join("\n\n") }],
    answer: checksAnswer,
    temperature: 0,
    maxOutputTokens: 256 + 160 * lines.length,
  };
}

function describeCalls(result: AgentRun): string {
  if (!result.calls?.length) return "(no tool calls)";
  return result.calls
    .map((call, index) => {
      const parts = [`${index + 1}. ${call.toolName}`];
      if (call.input !== undefined) parts.push(`   input: ${show(call.input)}`);
      if (call.output !== undefined) parts.push(`   output: ${show(call.output)}`);
      return parts.join("\n");
    })
    .join("\n");
}

function show(value: unknown): string {
  let text: string;
  try {
    text = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > MAX_VALUE_CHARS
    ? `${text.slice(0, MAX_VALUE_CHARS)}…[${text.length - MAX_VALUE_CHARS} more characters cut]`
    : text;
}
