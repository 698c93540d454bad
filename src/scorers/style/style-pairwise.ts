import * as z from "zod";
import type { JudgeFn } from "../../judge/types.js";
import { scoreSchema } from "../../score/score.js";
import { type Driver, defineTool } from "../../tool/index.js";
import { noteShippedDriver } from "../../tool/shipped-driver.js";
import { scorerInputSchema } from "../tool-input.js";
import { makeJudgedDriver, refuseMoreThanJudge } from "./judged-driver.js";

const LABEL = "style-pairwise";

const stylePairwiseInputSchema = scorerInputSchema({
  /** A text in the target style. */
  reference: z.string(),
  /** First candidate. */
  a: z.string(),
  /** Second candidate. */
  b: z.string(),
  /** What "closer in style" means here. */
  criteria: z.string().min(1, "criteria must say what to compare"),
});

/** Input of `eval.style-pairwise`. */
export type StylePairwiseInput = z.infer<typeof stylePairwiseInputSchema>;

/**
 * `eval.style-pairwise`: a judge says which of two candidates is closer in style to a reference.
 * value encodes the preference: 1 = a wins, 0 = b wins, 0.5 = tie (values between are a
 * graded preference). passed = value >= 0.5, that is, a holds up against b; the judge's own
 * `passed` is not used. A malformed verdict fails the score (value 0, passed false), errored.
 * Run both orders (a/b, then b/a) and aggregate with `pairwiseWinRate` to cancel position bias.
 */
export const stylePairwiseTool = defineTool({
  id: "eval.style-pairwise",
  description:
    "Judge which of two candidate texts (a or b) is closer in style to a reference: 1 = a, 0 = b, 0.5 = tie.",
  inputSchema: stylePairwiseInputSchema,
  outputSchema: scoreSchema,
});
noteShippedDriver(stylePairwiseTool, "makeStylePairwiseDriver", "makeStylePairwiseDriver(judge)");

/**
 * Build a driver that implements {@link stylePairwiseTool} with an injected judge. The judge
 * receives `output: { a, b }`, `expected: reference`, and criteria that spell out the value
 * encoding. A judge that throws rejects the call (an errored score, not a failed one).
 * @example
 * const score = await runTool({
 *   tool: stylePairwiseTool,
 *   candidates: [makeStylePairwiseDriver(judge)],
 *   input: { reference, a, b, criteria: "registre, rythme, vocabulaire" },
 * });
 */
export function makeStylePairwiseDriver(judge: JudgeFn): Driver;
export function makeStylePairwiseDriver(judge: JudgeFn, ...extra: unknown[]): Driver {
  refuseMoreThanJudge(
    "makeStylePairwiseDriver",
    extra,
    "its value is the judge's preference (1: a wins, 0: b wins, 0.5: a tie), with no option to set",
  );
  return makeJudgedDriver(judge, {
    factory: "makeStylePairwiseDriver",
    driverId: "niceeval.style-pairwise",
    tool: stylePairwiseTool,
    label: LABEL,
    ask: (input) => ({
      output: { a: input.a, b: input.b },
      expected: input.reference,
      criteria: pairwiseCriteria(input.criteria),
    }),
    decide: (verdict) => {
      const preference = verdict.value > 0.5 ? "a wins" : verdict.value < 0.5 ? "b wins" : "tie";
      return {
        value: verdict.value,
        passed: verdict.value >= 0.5,
        label: LABEL,
        rationale: `${preference} (${verdict.value})${verdict.rationale ? `: ${verdict.rationale}` : ""}`,
      };
    },
  });
}

function pairwiseCriteria(criteria: string): string {
  return [
    "Compare two candidate texts, output.a and output.b, with the reference text given as expected.",
    `Decide which candidate is closer in style to the reference, judging: ${criteria}`,
    "Answer value 1 if a is closer, 0 if b is closer, 0.5 if neither is; a value in between is a graded preference.",
  ].join("\n");
}
