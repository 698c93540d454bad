import { expectTypeOf } from "vitest";
import { createScorer } from "../scorers/create-scorer.js";
import { exactMatchTool } from "../scorers/deterministic/exact-match.js";
import { evalScorersProvider } from "../scorers/deterministic/provider.js";
import { regexMatchTool } from "../scorers/deterministic/regex-match.js";
import { bindScorer, defineSuite, type EvalSuite, type TypedEvalSuite } from "./suite.js";

// A suite as data takes the scorers a suite takes: bound tool scorers and createScorer ones.
const same = createScorer<string, string>({
  name: "same",
  score: ({ output, expected }) => ({ score: output === expected ? 1 : 0 }),
});
const exact = bindScorer<string, { actual: string; expected: string }>({
  id: "exact",
  tool: exactMatchTool,
  driver: evalScorersProvider,
  mapInput: ({ output, expected }) => ({ actual: output, expected: String(expected) }),
});
const suite: TypedEvalSuite<string, string> = {
  id: "s",
  cases: [{ id: "a", input: "x", expected: "x" }],
  scorers: [same, exact],
};
expectTypeOf(suite.id).toBeString();
// And any typed suite is an EvalSuite, a suite of any input and output.
const any: EvalSuite = suite;
expectTypeOf(any).toEqualTypeOf<EvalSuite>();

const numeric = createScorer<number>({ name: "n", score: ({ output }) => ({ score: output }) });
// @ts-expect-error a scorer of another output type does not fit
const wrong: TypedEvalSuite<string, string> = { id: "w", cases: [], scorers: [numeric] };
expectTypeOf(wrong).not.toBeNever();

// A createScorer written inline in a suite types its arguments without a `any`: the case's input
// from the suite, output and expected as unknown (give createScorer its types to read them).
defineSuite({
  id: "inline",
  cases: [{ input: { q: "x" }, expected: "x" }],
  target: async ({ q }: { q: string }) => ({ text: q }),
  scorers: [
    createScorer({
      name: "inline",
      score: ({ output, expected, input }) => {
        expectTypeOf(output).toBeUnknown();
        expectTypeOf(expected).toBeUnknown();
        expectTypeOf(input).toEqualTypeOf<{ q: string }>();
        return { score: 1 };
      },
    }),
  ],
});
// Scorers typed for a narrower expected value or with extra fields of their own still fit.
const region = createScorer<string, string, { region: string }>({
  name: "region",
  score: ({ output, region }) => ({ score: output === region ? 1 : 0 }),
});
const wider = createScorer<string | number>({ name: "wider", score: () => ({ score: 1 }) });
const typedFit: TypedEvalSuite<string, string> = {
  id: "fit",
  cases: [],
  scorers: [same, region, wider],
};
expectTypeOf(typedFit).not.toBeNever();

// A binding's mapInput must give everything its tool's input requires: a field left out is a
// compile error, not a case errored at run time ("expected: Invalid input").
interface Reply {
  text: string;
}
bindScorer({
  id: "inferred",
  tool: exactMatchTool,
  driver: evalScorersProvider,
  // @ts-expect-error `expected` is required by eval.exact-match
  mapInput: () => ({ actual: "a" }),
});
bindScorer<Reply, { actual: string }>({
  id: "explicit",
  // @ts-expect-error the binding's input lacks `expected`, which eval.exact-match requires
  tool: exactMatchTool,
  driver: evalScorersProvider,
  mapInput: ({ output }) => ({ actual: output.text }),
});
defineSuite<string, Reply>({
  id: "in-suite",
  cases: [{ input: "x" }],
  target: async (text) => ({ text }),
  scorers: [
    bindScorer({
      id: "pattern",
      tool: regexMatchTool,
      driver: evalScorersProvider,
      // @ts-expect-error `pattern` is required by eval.regex-match
      mapInput: ({ output }) => ({ actual: output.text }),
    }),
  ],
});
// An async mapInput is held to the same: its promise must give everything the tool requires.
bindScorer({
  id: "async-inferred",
  tool: exactMatchTool,
  driver: evalScorersProvider,
  // @ts-expect-error `expected` is required by eval.exact-match
  mapInput: async () => ({ actual: "a" }),
});
bindScorer({
  id: "async-fits",
  tool: exactMatchTool,
  driver: evalScorersProvider,
  mapInput: async () => ({ actual: "a", expected: "a" }),
});
// What the tool takes fits, its optional fields given, left out or explicitly undefined.
declare const flags: string | undefined;
defineSuite<string, Reply>({
  id: "fits",
  cases: [{ input: "x" }],
  target: async (text) => ({ text }),
  scorers: [
    bindScorer({
      id: "pattern",
      tool: regexMatchTool,
      driver: evalScorersProvider,
      mapInput: ({ output }) => ({ actual: output.text, pattern: "x", flags }),
    }),
    bindScorer({
      id: "exact",
      tool: exactMatchTool,
      driver: evalScorersProvider,
      mapInput: ({ output, expected }) => ({ actual: output.text, expected: String(expected) }),
    }),
    bindScorer<Reply, { actual: string; pattern: string; flags?: string }>({
      id: "declared",
      tool: regexMatchTool,
      driver: evalScorersProvider,
      mapInput: ({ output }) => ({ actual: output.text, pattern: "x" }),
    }),
  ],
});

// A createScorer scorer's expected type is checked against the cases' expected values: one made
// for another type would read fields they do not have and score 0 (it does not compile).
interface Answer {
  text: string;
}
const expectsText = createScorer<Answer, string>({
  name: "text",
  score: ({ output, expected }) => ({ score: output.text === expected ? 1 : 0 }),
});
const expectsLength = createScorer<Answer, number>({
  name: "length",
  score: ({ output, expected }) => ({ score: output.text.length === expected ? 1 : 0 }),
});
const expectsMin = createScorer<Answer, { min: number }>({
  name: "min",
  score: ({ output, expected }) => ({ score: output.text.length >= expected.min ? 1 : 0 }),
});
const answer = async ({ prompt }: { prompt: string }) => ({ text: prompt });
defineSuite({
  id: "expected-mismatch",
  cases: [{ id: "a", input: { prompt: "hi" }, expected: "hello" }],
  target: answer,
  // @ts-expect-error the cases' expected is a string, this scorer's a number
  scorers: [expectsText, expectsLength],
});
defineSuite({
  id: "expected-object",
  cases: [{ id: "a", input: { prompt: "hi" }, expected: "hello" }],
  target: answer,
  // @ts-expect-error the cases' expected is a string, this scorer's { min: number }
  scorers: [expectsMin],
});
// Cases given by a generator, an async iterable or a function returning them are checked alike.
function* generated() {
  yield { input: { prompt: "hi" }, expected: "hello" };
}
async function* streamed() {
  yield { input: { prompt: "hi" }, expected: "hello" };
}
// @ts-expect-error the generated cases' expected is a string
defineSuite({ id: "gen", cases: generated(), target: answer, scorers: [expectsMin] });
// @ts-expect-error the streamed cases' expected is a string
defineSuite({ id: "stream", cases: streamed(), target: answer, scorers: [expectsMin] });
defineSuite({
  id: "loader",
  cases: async () => [{ input: { prompt: "hi" }, expected: "hello" }],
  target: answer,
  // @ts-expect-error the loaded cases' expected is a string
  scorers: [expectsMin],
});
// The input a scorer declares in its EXTRA (seed 003) is checked against the cases' inputs alike.
const readsOther = createScorer<Answer, string, { input: { other: number } }>({
  name: "other",
  score: ({ input }) => ({ score: input.other }),
});
const readsPrompt = createScorer<Answer, string, { input: { prompt: string } }>({
  name: "prompt",
  score: ({ input, output }) => ({ score: input.prompt === output.text ? 1 : 0 }),
});
defineSuite<{ prompt: string }, Answer, string>({
  id: "input-mismatch",
  cases: [{ input: { prompt: "p" }, expected: "e" }],
  target: answer,
  // @ts-expect-error the cases' input is { prompt: string }, this scorer's { other: number }
  scorers: [readsOther],
});
defineSuite<{ prompt: string }, Answer, string>({
  id: "input-fits",
  cases: [{ input: { prompt: "p" }, expected: "e" }],
  target: answer,
  scorers: [readsPrompt, expectsText],
});
// A plain suite (toVitest's, runEval's) is checked the same way.
const plainMismatch: TypedEvalSuite<{ prompt: string }, Answer, string> = {
  id: "plain",
  cases: [{ input: { prompt: "hi" }, expected: "hello" }],
  // @ts-expect-error the cases' expected is a string, this scorer's { min: number }
  scorers: [expectsMin],
};
expectTypeOf(plainMismatch).not.toBeNever();

// What fits: the same type, a wider one, an unknown one, cases that leave expected out (some or
// all), cases whose expected type is not known, every form of cases, and bound tool scorers.
const widerExpected = createScorer<Answer, string | number>({
  name: "wider",
  score: () => ({ score: 1 }),
});
const anyExpected = createScorer<Answer>({ name: "any", score: () => ({ score: 1 }) });
const untyped = createScorer({ name: "untyped", score: () => ({ score: 1 }) });
const boundExact = bindScorer<Answer, { actual: string; expected: string }>({
  id: "bound",
  tool: exactMatchTool,
  driver: evalScorersProvider,
  mapInput: ({ output, expected }) => ({ actual: output.text, expected: String(expected) }),
});
const fitting = [expectsText, widerExpected, untyped, boundExact] as const;
defineSuite({
  id: "fits-array",
  cases: [
    { id: "a", input: { prompt: "hi" }, expected: "hello" },
    { id: "b", input: { prompt: "yo" } },
  ],
  target: answer,
  scorers: [...fitting],
});
defineSuite({ id: "fits-gen", cases: generated(), target: answer, scorers: [...fitting] });
defineSuite({ id: "fits-stream", cases: streamed(), target: answer, scorers: [...fitting] });
defineSuite({
  id: "fits-loader",
  cases: async () => [{ input: { prompt: "hi" }, expected: "hello" }],
  target: answer,
  scorers: [...fitting],
});
defineSuite({
  id: "no-expected",
  cases: [{ input: { prompt: "hi" } }],
  target: answer,
  scorers: [expectsMin, anyExpected],
});
declare const loaded: { input: { prompt: string }; expected?: unknown }[];
defineSuite({ id: "unknown", cases: loaded, target: answer, scorers: [expectsMin] });
// Type arguments for input and output alone leave the expected type unchecked, as before.
defineSuite<{ prompt: string }, Answer>({
  id: "explicit",
  cases: [{ input: { prompt: "hi" }, expected: "hello" }],
  target: answer,
  scorers: [expectsMin],
});
// With the third, the cases are checked too.
defineSuite<{ prompt: string }, Answer, string>({
  id: "explicit-expected",
  cases: [{ input: { prompt: "hi" }, expected: "hello" }],
  target: answer,
  // @ts-expect-error the cases' expected is a string
  scorers: [expectsMin],
});
