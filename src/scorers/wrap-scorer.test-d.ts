import { expectTypeOf } from "vitest";
import { createScorer, type Scorer } from "./create-scorer.js";
import { wrapScorer } from "./wrap-scorer.js";

const exactText = createScorer<string>({
  name: "exact-text",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});

// Mapping one side keeps the other side's type from the inner scorer.
expectTypeOf(wrapScorer(exactText, { expected: (e: { good: string }) => e.good })).toEqualTypeOf<
  Scorer<string, { good: string }, Record<string, unknown>>
>();
expectTypeOf(wrapScorer(exactText, { output: (o: { text: string }) => o.text })).toEqualTypeOf<
  Scorer<{ text: string }, string, Record<string, unknown>>
>();
expectTypeOf(
  wrapScorer(exactText, {
    output: (o: { text: string }) => o.text,
    expected: (e: { answer: string }) => e.answer,
  }),
).toEqualTypeOf<Scorer<{ text: string }, { answer: string }, Record<string, unknown>>>();
expectTypeOf(wrapScorer(exactText)).toEqualTypeOf<
  Scorer<string, string, Record<string, unknown>>
>();

// A mapping must produce what the inner scorer takes.
// @ts-expect-error the inner scorer compares strings, not numbers
wrapScorer(exactText, { output: (o: { n: number }) => o.n });

// Explicit type arguments in viteval's order: <OUTPUT, EXPECTED, INNER_OUTPUT, INNER_EXPECTED, EXTRA>.
expectTypeOf(
  wrapScorer<{ text: string }, { answer: string }, string, string>(exactText, {
    output: (o) => o.text,
    expected: (e) => e.answer,
  }),
).toEqualTypeOf<Scorer<{ text: string }, { answer: string }, Record<string, unknown>>>();
expectTypeOf(
  wrapScorer<{ text: string }, string, string>(exactText, { output: (o) => o.text }),
).toEqualTypeOf<Scorer<{ text: string }, string, Record<string, unknown>>>();
expectTypeOf(
  wrapScorer<string, { good: string }, string, string>(exactText, { expected: (e) => e.good }),
).toEqualTypeOf<Scorer<string, { good: string }, Record<string, unknown>>>();
