import { inspect } from "node:util";
import { type JudgeVerdict, safeParseVerdict } from "../../judge/types.js";
import type { Score } from "../../score/score.js";

/**
 * Validate a raw judge answer against `judgeVerdictSchema`: a verdict object, or a JSON string
 * holding one. Returns the verdict, or null when it is malformed (value missing, NaN, outside
 * 0..1, wrong field types), so a scorer can fail its score instead of carrying NaN. A value
 * outside 0..1 by floating-point rounding alone (`1.0000000000000002`) is clamped.
 * @example
 * parseVerdict({ value: 0.8 }) // → { value: 0.8 }
 * parseVerdict({ value: Number.NaN }) // → null
 */
export function parseVerdict(raw: unknown): JudgeVerdict | null {
  const parsed = safeParseVerdict(raw);
  if (!parsed.success) return null;
  const verdict: JudgeVerdict = { value: parsed.data.value };
  if (parsed.data.passed !== undefined) verdict.passed = parsed.data.passed;
  if (parsed.data.rationale !== undefined) verdict.rationale = parsed.data.rationale;
  return verdict;
}

/**
 * The score a model-backed style scorer returns when its judge's answer is malformed: failed
 * (value 0, never NaN, as seed 002 says) and errored, since the judge is at fault, never the output.
 */
export function malformedVerdictScore(label: string, raw: unknown): Score {
  return {
    value: 0,
    passed: false,
    errored: true,
    label,
    rationale: `malformed judge verdict (${preview(raw)}): the judge must return { value: number in 0..1, passed?: boolean, rationale?: string }`,
  };
}

// inspect, not JSON.stringify, so a NaN value shows as NaN rather than null.
function preview(raw: unknown): string {
  const text =
    typeof raw === "string"
      ? raw
      : inspect(raw, { depth: 2, breakLength: Number.POSITIVE_INFINITY });
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
