import { expectTypeOf } from "vitest";
import { createScorer, type NamedScorer, type Scorer } from "./create-scorer.js";
import { type WrapScorerOptions, wrapScorer } from "./wrap-scorer.js";

const exactText = createScorer<string>({
  name: "exact-text",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});

// Mapping one side keeps the other side's type from the inner scorer.
expectTypeOf(wrapScorer(exactText, { expected: (e: { good: string }) => e.good })).toEqualTypeOf<
  NamedScorer<string, { good: string }, Record<string, unknown>>
>();
expectTypeOf(wrapScorer(exactText, { output: (o: { text: string }) => o.text })).toEqualTypeOf<
  NamedScorer<{ text: string }, string, Record<string, unknown>>
>();
expectTypeOf(
  wrapScorer(exactText, {
    output: (o: { text: string }) => o.text,
    expected: (e: { answer: string }) => e.answer,
  }),
).toEqualTypeOf<NamedScorer<{ text: string }, { answer: string }, Record<string, unknown>>>();
expectTypeOf(wrapScorer(exactText)).toEqualTypeOf<
  NamedScorer<string, string, Record<string, unknown>>
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
).toEqualTypeOf<NamedScorer<{ text: string }, { answer: string }, Record<string, unknown>>>();
expectTypeOf(
  wrapScorer<{ text: string }, string, string>(exactText, { output: (o) => o.text }),
).toEqualTypeOf<NamedScorer<{ text: string }, string, Record<string, unknown>>>();
expectTypeOf(
  wrapScorer<string, { good: string }, string, string>(exactText, { expected: (e) => e.good }),
).toEqualTypeOf<NamedScorer<string, { good: string }, Record<string, unknown>>>();

// Options typed as the exported WrapScorerOptions, as viteval's signature takes them.
const options: WrapScorerOptions<{ text: string }, { answer: string }, string, string> = {
  output: (o) => o.text,
  expected: (e) => e.answer,
};
expectTypeOf(wrapScorer(exactText, options)).toEqualTypeOf<
  NamedScorer<{ text: string }, { answer: string }, Record<string, unknown>>
>();

// Seed 003's Scorer is a plain function type: one written to it compiles, and createScorer's
// result is one.
const plain: Scorer<string> = async ({ output }) => ({
  name: "len",
  score: output.length > 0 ? 1 : 0,
});
expectTypeOf(plain).toEqualTypeOf<Scorer<string>>();
expectTypeOf(exactText).toMatchTypeOf<Scorer<string>>();
