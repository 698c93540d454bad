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
