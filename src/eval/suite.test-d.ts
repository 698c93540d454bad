import { expectTypeOf } from "vitest";
import { createScorer } from "../scorers/create-scorer.js";
import { exactMatchTool } from "../scorers/deterministic/exact-match.js";
import { evalScorersProvider } from "../scorers/deterministic/provider.js";
import { bindScorer, type EvalSuite, type TypedEvalSuite } from "./suite.js";

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
