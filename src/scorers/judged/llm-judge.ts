import * as z from "zod";
import { AuthoringError } from "../../errors.js";
import type { ScorerBinding, ScorerMapArgs } from "../../eval/suite.js";
import { judgingDriver } from "../../judge/judge-models.js";
import {
  type JsonValue,
  type JudgeFn,
  jsonValueSchema,
  safeParseVerdict,
} from "../../judge/types.js";
import { JudgeUnavailableError } from "../../judge/unavailable.js";
import { type KnownKeys, refuseUnknownKeys } from "../../known-keys.js";
import { requireFunction, requireText, valueKind } from "../../required.js";
import { makeScore, type Score, scoreSchema } from "../../score/score.js";
import { noteShippedDriver } from "../../tool/shipped-driver.js";
import { type Driver, defineDriver, defineTool, implementTool } from "../../tool/tool.js";
import { show } from "../deterministic/preview.js";
import { scorerInputSchema } from "../tool-input.js";

/** Input of the `eval.llm-judge` tool. */
export interface LlmJudgeInput {
  output: JsonValue;
  criteria: string;
  expected?: JsonValue | undefined;
}

const llmJudgeInputSchema = scorerInputSchema({
  output: jsonValueSchema,
  criteria: z.string().min(1, "criteria must say what the judge checks"),
  expected: jsonValueSchema.optional(),
}) as z.ZodType<LlmJudgeInput>;

/** The `eval.llm-judge` tool contract: a model-backed scorer whose judge lives in the driver. */
export const llmJudgeTool = defineTool<LlmJudgeInput, Score>({
  id: "eval.llm-judge",
  description:
    "Ask a judge how well an output meets criteria; value 0..1, passed against a threshold.",
  inputSchema: llmJudgeInputSchema,
  outputSchema: scoreSchema,
});
noteShippedDriver(llmJudgeTool, "makeLlmJudgeDriver", "makeLlmJudgeDriver(judge)");

/** Options of {@link makeLlmJudgeDriver}. */
export interface MakeLlmJudgeDriverOptions {
  /** `passed` when value >= threshold, unless the verdict says `passed` itself (default 0.5). */
  threshold?: number | undefined;
  /** The Score's label (default "llm-judge"). */
  label?: string | undefined;
}
const makeLlmJudgeDriverOptionsKeys = {
  threshold: true,
  label: true,
} satisfies KnownKeys<MakeLlmJudgeDriverOptions>;

/** The threshold a verdict's value must reach (default 0.5); an AuthoringError naming `where`. */
function checkedThreshold(where: string, given: unknown): number {
  const threshold = given ?? 0.5;
  if (
    typeof threshold === "number" &&
    Number.isFinite(threshold) &&
    threshold >= 0 &&
    threshold <= 1
  )
    return threshold;
  const shown = typeof threshold === "string" ? JSON.stringify(threshold) : String(threshold);
  const hint =
    typeof threshold === "number" && threshold > 1 && threshold <= 100
      ? ` (a share: ${threshold / 100} for ${threshold}%)`
      : "";
  throw new AuthoringError(
    `${where}: \`threshold\` must be a number from 0 to 1${hint}, got ${shown}`,
  );
}

/**
 * Refuse a `judge` that is not a JudgeFn when the scorer is made, not on its first case: a model
 * string is named with the function that makes a judge of it.
 */
function requireJudge(where: string, judge: unknown): void {
  if (typeof judge === "function") return;
  const advice =
    typeof judge === "string"
      ? `judgeFromModel(${JSON.stringify(judge)}) makes one of a model string`
      : 'judgeFromModel("openai/gpt-4.1-mini"), judgeFromAiSdk(model), or async ({ output, criteria }) => ({ value })';
  throw new AuthoringError(
    `${where}: \`judge\` must be a JudgeFn, got ${valueKind(judge)}; ${advice}`,
  );
}

/**
 * A driver implementing `eval.llm-judge` with an injected judge. An explicit `passed` in the
 * verdict wins over the threshold; a verdict may be a JSON string holding one; a malformed verdict
 * (NaN, a missing value, a value outside
 * 0..1) rejects the call with a JudgeUnavailableError saying so, as a model's would. A judge that
 * throws propagates too, so the runner reports the judgment unavailable or errored, never a 0.
 * @example
 * runTool({ tool: llmJudgeTool, candidates: [makeLlmJudgeDriver(judge, { threshold: 0.7 })], input: { output, criteria } });
 */
export function makeLlmJudgeDriver(
  judge: JudgeFn,
  options: MakeLlmJudgeDriverOptions = {},
): Driver {
  requireJudge("makeLlmJudgeDriver", judge);
  refuseUnknownKeys("makeLlmJudgeDriver", options, makeLlmJudgeDriverOptionsKeys, "options");
  const threshold = checkedThreshold("makeLlmJudgeDriver", options.threshold);
  const label = options.label ?? "llm-judge";
  const driver = defineDriver({
    id: "niceeval.llm-judge",
    implementations: [
      implementTool(llmJudgeTool, async (input, context) => {
        const args: Parameters<JudgeFn>[0] = { output: input.output, criteria: input.criteria };
        if (input.expected !== undefined) args.expected = input.expected;
        // The suite's abort signal reaches the judge's model call.
        if (context.signal) args.signal = context.signal;
        return verdictToScore(await judge(args), threshold, label);
      }),
    ],
  });
  // A judge from judgeFromModel names its model: the suite binding it records it.
  return judgingDriver(driver, judge);
}

/**
 * A raw verdict as a Score: explicit passed first. A verdict may come as a JSON string holding
 * one (`'{"value":0.97}'`), as the style scorers take it. A value outside 0..1 by floating-point
 * rounding alone is clamped.
 * @throws JudgeUnavailableError (kind "malformed") when the verdict is malformed (a value
 * outside 0..1 included: a judge answering on another scale would otherwise pass every case),
 * as `judgeFromModel` does for a model's answer: niceeval never guesses a score, so runners
 * report the judgment unavailable with why, never a 0.
 */
export function verdictToScore(raw: unknown, threshold: number, label: string): Score {
  const parsed = safeParseVerdict(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join(".") : "verdict";
    throw new JudgeUnavailableError(
      "malformed",
      label,
      `malformed verdict (${where}: ${issue?.message ?? "rejected"}; got ${show(raw)}): a JudgeFn must return { value: number in 0..1, passed?: boolean, rationale?: string }`,
    );
  }
  const { value, passed, rationale } = parsed.data;
  return makeScore(label, value, passed ?? value >= threshold, rationale);
}

/** What {@link llmJudge} takes. */
export interface LlmJudgeBindingOptions<Output> {
  id: string;
  judge: JudgeFn;
  criteria: string;
  threshold?: number | undefined;
  /** The part of the target's output the judge sees. */
  mapOutput: (args: ScorerMapArgs<Output>) => JsonValue;
  /** What the judge compares against (default: the case's `expected`, when it is set). */
  mapExpected?: ((args: ScorerMapArgs<Output>) => JsonValue | undefined) | undefined;
}
const llmJudgeBindingOptionsKeys = {
  id: true,
  judge: true,
  criteria: true,
  threshold: true,
  mapOutput: true,
  mapExpected: true,
} satisfies KnownKeys<LlmJudgeBindingOptions<unknown>>;

/** A ready-to-bind `eval.llm-judge` scorer. */
export type LlmJudgeBinding<Output> = ScorerBinding<Output, LlmJudgeInput>;

/**
 * Build a suite scorer binding around a judge.
 * @example
 * bindScorer(llmJudge<Answer>({ id: "helpfulness", judge, criteria: "Is the answer helpful?", threshold: 0.7, mapOutput: ({ output }) => output.text }))
 */
export function llmJudge<Output>(options: LlmJudgeBindingOptions<Output>): LlmJudgeBinding<Output> {
  const id = (options as { id?: unknown } | null)?.id;
  refuseUnknownKeys(
    typeof id === "string" ? `llmJudge("${id}")` : "llmJudge",
    options,
    llmJudgeBindingOptionsKeys,
  );
  // Checked here too, so a refusal names llmJudge and the scorer, as its other checks do.
  const where = typeof id === "string" ? `llmJudge("${id}")` : "llmJudge";
  requireText(where, "id", id, "the scorer's name in reports");
  requireJudge(where, options.judge);
  requireText(where, "criteria", options.criteria, "what the judge checks");
  requireFunction(
    where,
    "mapOutput",
    options.mapOutput,
    "({ output, expected, input, caseId }) => the part of the output the judge sees",
  );
  // Optional, but of the wrong kind (a field's name) it would fail every case.
  if (options.mapExpected !== undefined)
    requireFunction(
      where,
      "mapExpected",
      options.mapExpected,
      "({ output, expected, input, caseId }) => what the judge compares against",
    );
  checkedThreshold(where, options.threshold);
  const driver = makeLlmJudgeDriver(options.judge, {
    label: options.id,
    ...(options.threshold !== undefined ? { threshold: options.threshold } : {}),
  });
  return {
    id: options.id,
    tool: llmJudgeTool,
    driver,
    mapInput: (args) => {
      const input: LlmJudgeInput = { output: options.mapOutput(args), criteria: options.criteria };
      const expected = options.mapExpected
        ? options.mapExpected(args)
        : (args.expected as JsonValue | undefined);
      if (expected !== undefined) input.expected = expected;
      return input;
    },
  };
}
