import * as z from "zod";

/** The shared shape of every tool scorer's result. */
export const scoreSchema = z.object({
  /** Normalised score, 0..1. */
  value: z.number().min(0).max(1),
  /** Whether the value clears the scorer's threshold. */
  passed: z.boolean(),
  /** The scorer's id, e.g. "exact-match". */
  label: z.string(),
  /** Why, in words. */
  rationale: z.string().optional(),
  /** The scorer could not judge (a bad schema, a crash): reported as errored, never as the output's failure. */
  errored: z.literal(true).optional(),
  /** The evidence to judge is missing (an empty text): reported as unavailable, never as a 0. */
  unavailable: z.literal(true).optional(),
});

/** A tool scorer's result: value 0..1, passed, label, and an optional rationale. */
export type Score = z.infer<typeof scoreSchema>;

/** Build a Score, clamping the value into 0..1 (NaN becomes 0 with passed false). */
export function makeScore(
  label: string,
  value: number,
  passed: boolean,
  rationale?: string,
): Score {
  const safe = Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
  const score: Score = { value: safe, passed: Number.isFinite(value) && passed, label };
  if (rationale !== undefined) score.rationale = rationale;
  return score;
}
