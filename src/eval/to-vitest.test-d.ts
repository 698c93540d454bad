import { describe, expect, expectTypeOf, it } from "vitest";
import { createScorer } from "../scorers/create-scorer.js";
import type { TypedEvalSuite } from "./suite.js";
import { toVitest, type VitestHooks } from "./to-vitest.js";

// Vitest's own describe / it / expect fit the injected hooks as they are.
expectTypeOf({ describe, it, expect }).toExtend<VitestHooks>();

declare const suite: TypedEvalSuite<{ prompt: string }, { text: string }>;

// The target's input and output are the suite's.
toVitest(suite, { target: async ({ prompt }) => ({ text: prompt }) }, { describe, it, expect });
// @ts-expect-error the target must return the suite's output type
toVitest(suite, { target: async () => ({ txt: "x" }) }, { describe, it, expect });
const wrongInput = async ({ query }: { query: string }) => ({ text: query });
// @ts-expect-error the target receives the suite's input type
toVitest(suite, { target: wrongInput }, { describe, it, expect });

// The scorers take the cases' expected values.
const expectsMin = createScorer<{ text: string }, { min: number }>({
  name: "min",
  score: ({ output, expected }) => ({ score: output.text.length >= expected.min ? 1 : 0 }),
});
const expectsText = createScorer<{ text: string }, string>({
  name: "text",
  score: ({ output, expected }) => ({ score: output.text === expected ? 1 : 0 }),
});
const target = async ({ prompt }: { prompt: string }) => ({ text: prompt });
toVitest(
  {
    id: "mismatch",
    cases: [{ input: { prompt: "hi" }, expected: "hello" }],
    // @ts-expect-error the cases' expected is a string, this scorer's { min: number }
    scorers: [expectsMin],
  },
  { target },
  { describe, it, expect },
);
toVitest(
  { id: "fits", cases: [{ input: { prompt: "hi" }, expected: "hello" }], scorers: [expectsText] },
  { target },
  { describe, it, expect },
);
