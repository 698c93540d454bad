import { bindScorer, defineSuite } from "niceeval";
import {
  calls,
  createScorer,
  type ExpectedCalls,
  evalScorersProvider,
  exactMatchTool,
  jsonSchemaValidTool,
  latencyBudgetTool,
  regexMatchTool,
} from "niceeval/scorers";
import { type AgentRun, runAgent } from "./agent.js";

interface Expected {
  intent: string;
  mentions: string;
  calls: ExpectedCalls;
}

const summarySchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  required: ["intent", "orderId", "refunded"],
  properties: {
    intent: { enum: ["track", "refund", "question", "other"] },
    orderId: { anyOf: [{ type: "null" }, { type: "string", pattern: "^[A-Z]-\\d{4}$" }] },
    refunded: { type: "boolean" },
  },
  additionalProperties: false,
};

const expectedOf = (expected: unknown) => expected as Expected;

export const supportAgent = defineSuite<string, AgentRun>({
  id: "support-agent",
  cases: [
    {
      id: "track-shipped",
      input: "Where is my order A-1001?",
      expected: {
        intent: "track",
        mentions: "shipped",
        calls: { mustCall: ["lookup_order"], mustNotCall: ["refund"] },
      },
    },
    {
      id: "refund-lost",
      input: "My order A-1003 was lost, I want a refund",
      expected: {
        intent: "refund",
        mentions: "refunded \\d+\\.\\d{2} EUR",
        calls: { mustCall: ["lookup_order", "refund"], atMostOnce: ["refund"] },
      },
    },
    {
      id: "refund-refused",
      input: "Refund A-1002 please",
      expected: {
        intent: "refund",
        mentions: "cannot be refunded",
        calls: { mustCall: ["lookup_order"], mustNotCall: ["refund"] },
      },
    },
    {
      id: "returns-policy",
      input: "How do I return an item?",
      expected: {
        intent: "question",
        mentions: "30 days",
        calls: { mustCall: ["search_docs"], mustNotCall: ["refund", "lookup_order"] },
      },
    },
  ],
  target: (message) => runAgent(message),
  scorers: [
    bindScorer<AgentRun, { actual: string; expected: string }>({
      id: "intent",
      tool: exactMatchTool,
      driver: evalScorersProvider,
      mapInput: ({ output, expected }) => ({
        actual: output.summary.intent,
        expected: expectedOf(expected).intent,
      }),
    }),
    bindScorer<AgentRun, { actual: string; pattern: string; flags?: string }>({
      id: "mentions",
      tool: regexMatchTool,
      driver: evalScorersProvider,
      mapInput: ({ output, expected }) => ({
        actual: output.text,
        pattern: expectedOf(expected).mentions,
        flags: "i",
      }),
    }),
    bindScorer<AgentRun, { actual: unknown; schema: Record<string, unknown> }>({
      id: "summary-shape",
      tool: jsonSchemaValidTool,
      driver: evalScorersProvider,
      mapInput: ({ output }) => ({ actual: output.summary, schema: summarySchema }),
    }),
    bindScorer<AgentRun, { durationMs: number; budgetMs: number }>({
      id: "latency",
      tool: latencyBudgetTool,
      driver: evalScorersProvider,
      mapInput: ({ output }) => ({ durationMs: output.latencyMs, budgetMs: 50 }),
    }),
    createScorer<AgentRun, Expected>({
      name: "tool-calls",
      score: ({ output, expected }) => {
        const mark = calls(output, expected.calls);
        return { score: mark.score, metadata: { reason: mark.reason } };
      },
    }),
  ],
});
