import { expectTypeOf } from "vitest";
import {
  createScorer,
  evaluate,
  type NamedScore,
  type Score,
  type Scorer,
  type ScorerArgs,
} from "./index.js";

const correctAnswer = createScorer<{ answer: string }, string>({
  name: "correct-answer",
  score: ({ output, expected }) => ({ score: output.answer === expected ? 1 : 0 }),
});

// The task sees the item's input and extra fields, typed from the data.
evaluate("typed", {
  data: [{ input: "France", expected: "Paris", difficulty: 2 }],
  task: (args) => {
    expectTypeOf(args.input).toEqualTypeOf<string>();
    expectTypeOf(args.difficulty).toEqualTypeOf<number>();
    expectTypeOf(args.signal).toEqualTypeOf<AbortSignal>();
    return { answer: "Paris" };
  },
  scorers: [correctAnswer],
});

// Async data functions type the items the same way.
evaluate("async", {
  data: async () => [{ input: 1 }],
  task: ({ input }) => {
    expectTypeOf(input).toEqualTypeOf<number>();
    return { answer: String(input) };
  },
  scorers: [correctAnswer],
});

evaluate("no peeking", {
  data: [{ input: "France", expected: "Paris" }],
  // @ts-expect-error the task never receives the expected answer
  task: ({ expected }) => ({ answer: expected }),
  scorers: [correctAnswer],
});

evaluate("wrong output", {
  data: [{ input: "France", expected: "Paris" }],
  task: () => "Paris",
  // @ts-expect-error the task returns a string but the scorer scores { answer: string }
  scorers: [correctAnswer],
});

evaluate("bad aggregation", {
  data: [{ input: "France", expected: "Paris" }],
  task: () => ({ answer: "Paris" }),
  scorers: [correctAnswer],
  // @ts-expect-error aggregation is mean, median or sum
  aggregation: "max",
});

// Seed 003's Scorer shape: a plain function returning a Score, typed by the task's output.
expectTypeOf<Score>().toEqualTypeOf<NamedScore>();
const seedShaped = (args: ScorerArgs<{ answer: string }, string>): Score => ({
  name: "exact",
  score: args.output.answer === args.expected ? 1 : 0,
});
evaluate("plain functions", {
  data: [{ input: "France", expected: "Paris" }],
  task: () => ({ answer: "Paris" }),
  scorers: [
    seedShaped,
    correctAnswer,
    async ({ output }) => {
      expectTypeOf(output).toEqualTypeOf<{ answer: string }>();
      return { name: "has-answer", score: output.answer ? 1 : 0 };
    },
  ],
});

// A function typed as seed 003's Scorer goes in as it is.
const typedAsSeed: Scorer<{ answer: string }, string> = ({ output, expected }) => ({
  name: "typed",
  score: output.answer === expected ? 1 : 0,
});
evaluate("a Scorer-typed function", {
  data: [{ input: "France", expected: "Paris" }],
  task: () => ({ answer: "Paris" }),
  scorers: [typedAsSeed],
});

evaluate("plain function on another output", {
  data: [{ input: "France", expected: "Paris" }],
  task: () => "Paris",
  // @ts-expect-error the task returns a string but the plain scorer scores numbers
  scorers: [({ output }: { output: number }) => ({ name: "n", score: output })],
});

// A scorer's expected type is checked against the items' expected values: one made for another
// type would read fields they do not have and score 0 (it does not compile).
const capital = createScorer<{ answer: string }, { capital: string }>({
  name: "capital",
  score: ({ output, expected }) => ({ score: output.answer === expected.capital ? 1 : 0 }),
});
evaluate("expected mismatch", {
  data: [{ input: "France", expected: "Paris" }],
  task: () => ({ answer: "Paris" }),
  // @ts-expect-error the items' expected is a string, this scorer's { capital: string }
  scorers: [capital],
});
evaluate("expected mismatch, async data", {
  data: async () => [{ input: "France", expected: "Paris" }],
  task: () => ({ answer: "Paris" }),
  // @ts-expect-error the items' expected is a string, this scorer's { capital: string }
  scorers: [capital],
});
evaluate("plain function expecting another type", {
  data: [{ input: "France", expected: "Paris" }],
  task: () => ({ answer: "Paris" }),
  scorers: [
    // @ts-expect-error the items' expected is a string, this function's a number
    ({ expected }: ScorerArgs<{ answer: string }, number>) => ({ name: "n", score: expected }),
  ],
});
evaluate("expected of two types", {
  data: [
    { input: "France", expected: "Paris" },
    { input: "Spain", expected: { capital: "Madrid" } },
  ],
  task: () => ({ answer: "Paris" }),
  // @ts-expect-error one item's expected is a string, which { capital } scorers cannot read
  scorers: [capital],
});
// Items that give the scorer's expected type, or leave it out, fit; so do untyped scorers.
evaluate("expected partly given", {
  data: [{ input: "France", expected: { capital: "Paris" } }, { input: "Spain" }],
  task: () => ({ answer: "Paris" }),
  scorers: [
    capital,
    createScorer({ name: "untyped", score: () => ({ score: 1 }) }),
    ({ expected }) => {
      expectTypeOf(expected).toEqualTypeOf<{ capital: string }>();
      return { name: "plain", score: 1 };
    },
  ],
});
evaluate("no expected", {
  data: [{ input: "France", hint: "Paris" }],
  task: () => ({ answer: "Paris" }),
  scorers: [
    capital,
    createScorer<{ answer: string }, string, { hint: string }>({
      name: "hint",
      score: ({ output, hint }) => ({ score: output.answer === hint ? 1 : 0 }),
    }),
  ],
});
