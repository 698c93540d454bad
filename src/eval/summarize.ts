import type { Judgment, ScoreSummary, Verdict } from "./record.js";

/**
 * Earned / max over the judgments that carry points. Missing evidence never becomes a zero:
 * an unavailable or errored judgment keeps its points in max and makes the score partial
 * (or unavailable when nothing with points was available).
 */
export function summarizeScore(judgments: readonly Judgment[]): ScoreSummary {
  let earned = 0;
  let max = 0;
  let availablePoints = 0;
  let withPoints = 0;
  const reasons: string[] = [];
  for (const judgment of judgments) {
    if (judgment.points <= 0) continue;
    withPoints++;
    max += judgment.points;
    if (judgment.earned === null) {
      const reason = reasonText(judgment);
      reasons.push(namesItsScorer(judgment) ? reason : `${judgment.label}: ${reason}`);
    } else {
      earned += judgment.earned;
      availablePoints++;
    }
  }
  const state =
    withPoints === 0 || availablePoints === withPoints
      ? "complete"
      : availablePoints === 0
        ? "unavailable"
        : "partial";
  return { state, earned: round(earned), max: round(max), reasons };
}

/**
 * Whether a judgment's reason names its scorer already, as a suite scorer's do (`scorer "stats":
 * …`, read alone in places): a line that puts the label before it would say the scorer twice.
 */
export function namesItsScorer(judgment: { label: string; reason: string }): boolean {
  return reasonText(judgment).startsWith(`scorer "${judgment.label}"`);
}

/**
 * A judgment's reason as text. A record built by hand, or read from a user's match result, may
 * lack one: its state (`unavailable`) stands in for it rather than the summary throwing.
 */
function reasonText(judgment: { reason: string; state?: string }): string {
  const reason: unknown = judgment.reason;
  if (typeof reason === "string") return reason;
  return reason === undefined || reason === null ? (judgment.state ?? "no reason") : String(reason);
}

/**
 * errored (a crash, or a required gate without evidence) > failed (a gate mismatched)
 * > skipped > passed.
 */
export function decideVerdict(
  judgments: readonly Judgment[],
  options: { crashed?: boolean | undefined; skipped?: boolean | undefined } = NO_OPTIONS,
): Verdict {
  if (options.crashed) return "errored";
  let failed = false;
  for (const judgment of judgments) {
    if (judgment.state === "errored") return "errored";
    if (judgment.gate && judgment.state === "unavailable") return "errored";
    if (judgment.gate && judgment.state === "mismatched") failed = true;
  }
  if (failed) return "failed";
  if (options.skipped) return "skipped";
  return "passed";
}

const NO_OPTIONS: { crashed?: boolean; skipped?: boolean } = Object.freeze({});

const round = (value: number) => roundPoints(value, 1e9);

/**
 * A number of points rounded to 1/scale, for reading. A value too large to scale (a weight of
 * 1e306 × 1e9 is Infinity) has no fraction left to round and is kept as it is, never Infinity.
 */
export function roundPoints(value: number, scale: number): number {
  const scaled = value * scale;
  return Number.isFinite(scaled) ? Math.round(scaled) / scale : value;
}
