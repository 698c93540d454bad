import * as z from "zod";
import type { JudgeUsage } from "../eval/record.js";

/** Any JSON value. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue };
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** Zod schema of {@link JsonValue}. */
export const jsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(jsonValueSchema),
    z.record(z.string(), jsonValueSchema),
  ]),
);

/** What a judge answers: a value 0..1, an optional explicit pass, and why. */
export interface JudgeVerdict {
  value: number;
  passed?: boolean | undefined;
  rationale?: string | undefined;
}

/** The seam every model-backed scorer takes: a plain async function. */
export type JudgeFn = (args: {
  output: JsonValue;
  criteria: string;
  expected?: JsonValue | undefined;
  /** The run's abort signal: a judge that calls a model should pass it on. */
  signal?: AbortSignal | undefined;
}) => Promise<JudgeVerdict>;

/** Validates a raw verdict; a malformed one (NaN, missing value) is rejected. */
export const judgeVerdictSchema = z.object({
  value: z.number().finite().min(0).max(1),
  passed: z.boolean().optional(),
  rationale: z.string().optional(),
});

/** How far outside 0..1 a verdict's value may be and still be taken as floating-point rounding. */
const ROUNDING = 1e-9;

/**
 * A raw verdict whose `value` misses 0..1 by floating-point rounding alone (a judge's mean of
 * weights gives `1.0000000000000002`) with that value clamped to 0..1; anything else as it came,
 * for {@link judgeVerdictSchema} to accept or refuse (a value on another scale stays refused).
 */
export function clampRounding(raw: unknown): unknown {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return raw;
  const { value } = raw as { value?: unknown };
  if (typeof value !== "number" || !Number.isFinite(value)) return raw;
  if (value > 1 && value <= 1 + ROUNDING) return { ...raw, value: 1 };
  if (value < 0 && value >= -ROUNDING) return { ...raw, value: 0 };
  return raw;
}

/**
 * Validate a judge's raw answer with {@link judgeVerdictSchema}: a verdict object, or a JSON
 * string holding one (a judge that hands on its model's text), a value off 0..1 by rounding alone
 * clamped ({@link clampRounding}). A string that is not JSON is refused as the string it is.
 * @example
 * safeParseVerdict('{"value":0.97}').success // → true
 */
export function safeParseVerdict(raw: unknown) {
  return judgeVerdictSchema.safeParse(clampRounding(typeof raw === "string" ? fromJson(raw) : raw));
}

function fromJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The answer to a closed question over captured material (t.closeQA).
 * `insufficient` means the material does not let the judge decide: unavailable, never 0.
 */
export interface CloseQAAnswer {
  state: "satisfied" | "not-satisfied" | "insufficient" | "unavailable";
  reason: string;
  /** Request, raw answer and parsed verdict, bounded by maxAuditBytes. */
  audit?: unknown;
  usage?: JudgeUsage | undefined;
}

/** Asks one closed question over material. Provided by the judge layer when configured. */
export type CloseQAJudge = (request: {
  material: string;
  question: string;
  signal?: AbortSignal | undefined;
  maxAuditBytes?: number | undefined;
}) => Promise<CloseQAAnswer>;
