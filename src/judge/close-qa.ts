import { askForVerdict, type Checked, closedObject } from "./ask.js";
import { boundAudit } from "./audit.js";
import { type JudgeSource, judgeSourceName, requireJudgeSource } from "./call.js";
import type { JudgeAnswerSchema, JudgeChatRequest } from "./chat.js";
import { withJudgeModels } from "./judge-models.js";
import { markJudgePossible } from "./ledger.js";
import type { CloseQAAnswer, CloseQAJudge } from "./types.js";

/** Audits are kept whole up to 1 MiB unless the caller bounds them tighter. */
export const DEFAULT_MAX_AUDIT_BYTES = 1024 * 1024;

type Verdict = { verdict: "satisfied" | "not-satisfied" | "insufficient"; reason: string };

const closeQAAnswer: JudgeAnswerSchema = {
  name: "close_qa_verdict",
  description: "Whether the material satisfies the question, does not, or cannot tell.",
  schema: closedObject({
    verdict: { type: "string", enum: ["satisfied", "not-satisfied", "insufficient"] },
    reason: { type: "string", description: "Why, citing the material." },
  }),
};

const SYSTEM = [
  "You answer one closed question about captured material from an application's run, using only that material.",
  'Answer "satisfied" when the material shows the answer is yes, "not-satisfied" when it shows the answer is no, and "insufficient" when the material does not let you decide. Never guess.',
  'Answer with one JSON object and nothing else: {"verdict": "satisfied" | "not-satisfied" | "insufficient", "reason": "…"}.',
].join("\n");

/** The request a closeQA judge sends. */
export function closeQARequest(material: string, question: string): JudgeChatRequest {
  return {
    system: SYSTEM,
    messages: [{ role: "user", content: `## Question\n${question}\n\n## Material\n${material}` }],
    answer: closeQAAnswer,
    temperature: 0,
    maxOutputTokens: 600,
  };
}

/**
 * A {@link CloseQAJudge} over a model string or provider: one call (plus one repair turn for
 * an unusable answer). satisfied / not-satisfied / insufficient come from the judge; a judge
 * that cannot answer is `unavailable` with the reason. The audit keeps the request, the raw
 * answers and the parsed verdict, bounded by maxAuditBytes. Its usage is already in the open
 * ledgers: attach it to the judgment, do not record it again.
 * @example
 * setDefaultCloseQAJudge(createCloseQAJudge("anthropic/claude-haiku-4.5"));
 */
export function createCloseQAJudge(model: JudgeSource): CloseQAJudge {
  requireJudgeSource("createCloseQAJudge", "model", model);
  markJudgePossible();
  const name = judgeSourceName(model);
  const judge: CloseQAJudge = async ({ material, question, signal, maxAuditBytes }) => {
    const request = closeQARequest(material, question);
    const answer = await askForVerdict(model, request, checkVerdict, signal ? { signal } : {});
    const audit = boundAudit(
      {
        model: name,
        request: { system: request.system, user: request.messages[0]?.content ?? "" },
        answers: answer.answers,
        verdict: answer.ok ? answer.value : null,
        cached: answer.ok ? answer.cached : false,
      },
      maxAuditBytes ?? DEFAULT_MAX_AUDIT_BYTES,
    );
    const base = { audit, usage: answer.usage };
    if (!answer.ok)
      return {
        state: "unavailable",
        reason: `judge "${name}" unavailable: ${answer.reason}`,
        ...base,
      };
    return {
      state: answer.value.verdict,
      reason: answer.value.reason,
      ...base,
    } satisfies CloseQAAnswer;
  };
  // A score eval given it records the model (its fingerprint and the manifest's judgeModels).
  return withJudgeModels(judge, [name]);
}

function checkVerdict(data: unknown): Checked<Verdict> {
  const { verdict, reason } = (data ?? {}) as { verdict?: unknown; reason?: unknown };
  if (verdict !== "satisfied" && verdict !== "not-satisfied" && verdict !== "insufficient") {
    return {
      ok: false,
      problem: `"verdict" must be "satisfied", "not-satisfied" or "insufficient", got ${JSON.stringify(verdict)}`,
    };
  }
  return {
    ok: true,
    value: {
      verdict,
      reason: typeof reason === "string" && reason.trim() ? reason.trim() : `judged ${verdict}`,
    },
  };
}
