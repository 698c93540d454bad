import { expectTypeOf } from "vitest";
import { createScorer, evaluate } from "./index.js";

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
  // @ts-expect-error the task returns a string but the scorer scores { answer: string }
  task: () => "Paris",
  scorers: [correctAnswer],
});

evaluate("bad aggregation", {
  data: [{ input: "France", expected: "Paris" }],
  task: () => ({ answer: "Paris" }),
  scorers: [correctAnswer],
  // @ts-expect-error aggregation is mean, median or sum
  aggregation: "max",
});
