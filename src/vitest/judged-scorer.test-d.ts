import { expectTypeOf } from "vitest";
import { type AgentRun, createScorer, type ExpectedOutcome } from "../scorers/index.js";
import { evaluate } from "./index.js";

// README's Judges scorer: it takes ExpectedOutcome and declares a typed `input` in EXTRA.
const judgedLike = createScorer<AgentRun, ExpectedOutcome, { input: string }>({
  name: "expectations",
  score: async ({ input }) => {
    expectTypeOf(input).toEqualTypeOf<string>();
    return { score: input ? 1 : 0 };
  },
});
const run = (): AgentRun => ({ text: "t", calls: [] });

// Items whose inferred expected is narrower than ExpectedOutcome, and whose input is a string.
evaluate("inferred items", {
  data: [{ input: "q", expected: { should: ["x"] } }],
  task: run,
  scorers: [judgedLike],
});

// The same scorer on items typed with ExpectedOutcome itself.
const data: { input: string; expected: ExpectedOutcome }[] = [
  { input: "q", expected: { should: ["x"] } },
];
evaluate("typed items", { data, task: run, scorers: [judgedLike] });

evaluate("unrelated expected", {
  data: [{ input: "q", expected: 42 }],
  task: run,
  // @ts-expect-error a scorer of ExpectedOutcome does not take items whose expected is a number
  scorers: [judgedLike],
});

evaluate("another input", {
  data: [{ input: 7, expected: { should: ["x"] } }],
  task: run,
  // @ts-expect-error the scorer reads a string input; these items give a number
  scorers: [judgedLike],
});

evaluate("another output", {
  data: [{ input: "q", expected: { should: ["x"] } }],
  task: () => "text",
  // @ts-expect-error the scorer scores an AgentRun; this task returns a string
  scorers: [judgedLike],
});
