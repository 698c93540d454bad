// Judge-backed evals of the support agent. Offline (no judge configured) every judged score is
// unavailable with the reason, the deterministic gates still decide, and the run passes with a
// partial score. With a judge configured (see docs/judges.md) the same evals score fully.
import { bindScorer, defineAdapter, defineSuite, judgeFromModel } from "niceeval";
import { atLeast } from "niceeval/expect";
import { calls, createScorer, type ExpectedCalls, expectations, llmJudge } from "niceeval/scorers";
import { type AgentRun, runAgent } from "../agent/agent.js";

/** The judge model; any provider string works (see docs/judges.md). */
const model = process.env.NICEEVAL_JUDGE_MODEL ?? "anthropic/claude-haiku-4.5";
const purpose = "Help customers of an online shop with their orders, from the order data only.";

interface Expected {
  situation: string;
  should: string[];
  shouldNot: string[];
  calls: ExpectedCalls;
}

export const judgedAgent = defineSuite<string, AgentRun>({
  id: "support-agent-judged",
  cases: [
    {
      id: "lost-parcel",
      input: "My order A-1003 was lost, I want a refund",
      expected: {
        situation: "Order A-1003 (88 EUR) was reported lost by the carrier.",
        should: ["confirms the refund", "states the refunded amount"],
        shouldNot: ["asks the customer to wait for the parcel"],
        calls: { mustCall: ["lookup_order", "refund"], atMostOnce: ["refund"] },
      },
    },
    {
      id: "early-refund",
      input: "Refund A-1002 please",
      expected: {
        situation: "Order A-1002 was delivered yesterday; refunds need a return first.",
        should: ["explains why no refund is made now"],
        shouldNot: ["promises a refund"],
        calls: { mustCall: ["lookup_order"], mustNotCall: ["refund"] },
      },
    },
  ],
  target: (message) => runAgent(message),
  scorers: [
    createScorer<AgentRun, Expected>({
      name: "tool-calls",
      score: ({ output, expected }) => {
        const mark = calls(output, expected.calls);
        return { score: mark.score, metadata: { reason: mark.reason } };
      },
    }),
    createScorer<AgentRun, Expected, { input: string }>({
      name: "expectations",
      // The model `score` judges with, recorded with the run (compare, --resume).
      judgeModel: model,
      score: async ({ input, output, expected }) => {
        const mark = await expectations(input, output, expected, model, purpose);
        return { score: mark.score, metadata: { reason: mark.reason } };
      },
    }),
    bindScorer(
      llmJudge<AgentRun>({
        id: "helpfulness",
        judge: judgeFromModel(model),
        criteria: "Is the reply helpful, polite and grounded in the order data?",
        threshold: 0.7,
        mapOutput: ({ output }) => output.text,
      }),
    ),
  ],
  // The deterministic check decides pass/fail; judged scorers earn points when a judge answers.
  gates: ["tool-calls"],
});

/** The agent observed live, its reply asked a closed question by the judge. */
const agentSession = defineAdapter({
  name: "support-agent",
  create: async () => {
    const run = await runAgent("My order A-1003 was lost, I want a refund");
    return { reply: { state: "available" as const, value: run.text }, toolCount: run.calls.length };
  },
  assertions: () => ({}),
});

export const replyQuality = agentSession.defineScoreEval({
  id: "support-agent.reply-quality",
  description: "The reply to a lost parcel states the refund clearly",
  test(t) {
    t.check(t.toolCount, atLeast(1)).gate().label("Used its tools");
    t.closeQA(t.reply, "Does the reply say that a refund was made and give its amount?", {
      maxMaterialBytes: 16 * 1024,
      maxAuditBytes: 64 * 1024,
    })
      .score(10)
      .label("Refund stated");
  },
});
