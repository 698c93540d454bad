import { directionsEval } from "./directions.js";

/** Everything recorded and verified: gates hold; the judged questions wait for a judge. */
export const directions = directionsEval(
  "directions.baseline",
  "A asks B the way, goes alone and meets B",
);

/** A's speech records carry no verified model origin: reported, but not a failed gate. */
export const directionsUnknownOrigin = directionsEval(
  "directions.unknown-origin",
  "A asks B the way; A's speech has unknown model origin",
  { speechOrigin: "unknown" },
);

/**
 * The conversation recorder filled up: checkpoint 1 is still decided by what was seen,
 * the questions over the conversation are unavailable (their weight stays in the maximum).
 */
export const directionsIncompleteEvidence = directionsEval(
  "directions.incomplete-evidence",
  "A asks B the way; the conversation record is incomplete",
  { recorderCapacity: 2 },
);
