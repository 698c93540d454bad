import type { Judgment, ScoreSummary } from "../eval/record.js";

/** How many of the weights that add up past the largest number the message names. */
const NAMED = 5;

/**
 * Why an attempt's points cannot be totalled, or undefined when they can: weights that each are
 * finite may add up to Infinity (1e308 + 1e308), whose score (Infinity/Infinity) means nothing
 * and which no report or store can hold. `attempt` names the eval and case ("eval "e", case "c"):
 * the failure is put on `the points of` it.
 */
export function pointsOverflow(
  attempt: string,
  judgments: readonly Judgment[],
  score: ScoreSummary,
): { message: string; where: string } | undefined {
  if (Number.isFinite(score.earned) && Number.isFinite(score.max)) return undefined;
  const weighted = judgments.filter((judgment) => judgment.points > 0);
  const named = weighted
    .slice(0, NAMED)
    .map((judgment) => `"${judgment.label}" (${judgment.source}, ${judgment.points} points)`);
  const more = weighted.length > NAMED ? ` and ${weighted.length - NAMED} more` : "";
  return {
    where: `the points of ${attempt}`,
    message: `its ${weighted.length} weighted judgments add up past the largest number (${Number.MAX_VALUE}), so its score cannot be computed: ${named.join(", ")}${more}. Use smaller weights: only their ratios count (weights of 1 and 3 score as 1e300 and 3e300 do)`,
  };
}

/** The score of an attempt whose points overflowed: unavailable, with nothing non-finite in it. */
export function overflowedScore(failure: { message: string; where: string }): ScoreSummary {
  return {
    state: "unavailable",
    earned: 0,
    max: 0,
    reasons: [`${failure.where}: ${failure.message}`],
  };
}
