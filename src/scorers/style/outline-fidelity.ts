import * as z from "zod";
import type { JudgeFn } from "../../judge/types.js";
import { scoreSchema } from "../../score/score.js";
import { type Driver, defineTool } from "../../tool/index.js";
import { noteShippedDriver } from "../../tool/shipped-driver.js";
import { scorerInputSchema } from "../tool-input.js";
import { makeJudgedDriver, refuseMoreThanJudge } from "./judged-driver.js";

const LABEL = "outline-fidelity";
/** The fixed gate: an answer must cover at least 95% of its outline. */
const PASS_AT = 0.95;

const outlineFidelityInputSchema = scorerInputSchema({
  /** The plan the answer should follow. */
  outline: z.string().min(1, "outline must not be empty"),
  /** The produced answer. */
  answer: z.string(),
});

/** Input of `eval.outline-fidelity`. */
export type OutlineFidelityInput = z.infer<typeof outlineFidelityInputSchema>;

/**
 * `eval.outline-fidelity`: a judge rates how completely an answer covers its outline.
 * value = the judged coverage; passed = value >= 0.95, a fixed gate that the judge's own
 * `passed` never overrides. A malformed verdict fails the score (value 0, passed false), errored.
 */
export const outlineFidelityTool = defineTool({
  id: "eval.outline-fidelity",
  description: "Judge how completely an answer covers its outline (0..1); passes at 0.95.",
  inputSchema: outlineFidelityInputSchema,
  outputSchema: scoreSchema,
});
noteShippedDriver(
  outlineFidelityTool,
  "makeOutlineFidelityDriver",
  "makeOutlineFidelityDriver(judge)",
);

/**
 * Build a driver that implements {@link outlineFidelityTool} with an injected judge. The judge
 * receives `output: answer`, `expected: outline`, and criteria asking for the covered share.
 * A judge that throws rejects the call (an errored score, not a failed one).
 * @example
 * await runTool({ tool: outlineFidelityTool, candidates: [makeOutlineFidelityDriver(judge)],
 *   input: { outline: "1. contexte 2. méthode", answer } });
 */
export function makeOutlineFidelityDriver(judge: JudgeFn): Driver;
export function makeOutlineFidelityDriver(judge: JudgeFn, ...extra: unknown[]): Driver {
  refuseMoreThanJudge(
    "makeOutlineFidelityDriver",
    extra,
    "its gate is fixed (a case passes at a coverage of 0.95 or more), with no option to set",
  );
  return makeJudgedDriver(judge, {
    factory: "makeOutlineFidelityDriver",
    driverId: "niceeval.outline-fidelity",
    tool: outlineFidelityTool,
    label: LABEL,
    ask: (input) => ({
      output: input.answer,
      expected: input.outline,
      criteria: [
        "The expected value is an outline; the output is an answer meant to follow it.",
        "Answer value = the share of the outline's points that the answer covers, from 0 to 1.",
      ].join("\n"),
    }),
    decide: (verdict) => {
      const passed = verdict.value >= PASS_AT;
      const parts = [`coverage ${verdict.value} ${passed ? ">=" : "<"} ${PASS_AT}`];
      if (verdict.passed !== undefined && verdict.passed !== passed) {
        parts.push(`the judge's own passed=${verdict.passed} is ignored: the gate is fixed`);
      }
      if (verdict.rationale) parts.push(verdict.rationale);
      return { value: verdict.value, passed, label: LABEL, rationale: parts.join("; ") };
    },
  });
}
