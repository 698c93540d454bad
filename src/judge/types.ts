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
