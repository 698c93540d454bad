import type { RunManifest } from "../store/types.js";

// What a `record` line of a run export must hold to be stored: the shape an export writes, and
// numbers the engine could have written (a score within 0..max, a trial within the eval's trials).

const VERDICTS = new Set(["passed", "failed", "skipped", "errored"]);
const SCORE_STATES = new Set(["complete", "partial", "unavailable"]);
const JUDGMENT_STATES = new Set(["matched", "mismatched", "unavailable", "errored"]);
/** The judge usage counts of a record, each a finite number from 0 when present. */
const JUDGE_COUNTS = [
  "calls",
  "cachedCalls",
  "retries",
  "inputTokens",
  "outputTokens",
  "unreportedCalls",
  "latencyMs",
  "costUsd",
] as const;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const isCount = (value: unknown): value is number =>
  typeof value === "number" && Number.isFinite(value) && value >= 0;

/** Within `limit`, allowing the rounding the engine applies to sums of points (1e-9). */
const atMost = (value: number, limit: number) => value <= limit + 1e-9 * Math.max(1, limit);

const shown = (value: unknown) => JSON.stringify(value) ?? String(value);

/** What the records of one export are checked against: its manifest line. */
export interface RecordRules {
  /** Trials per eval id, for the evals the manifest lists (undefined: not said). */
  trials: ReadonlyMap<string, number | undefined>;
  /**
   * A continuation forced through changes (`--resume --force`) may have run an eval with other
   * trials than its manifest says: its trials are not bounded.
   */
  trialsBounded: boolean;
}

/** The rules of an export whose manifest line is `manifest`. */
export function recordRules(manifest: RunManifest): RecordRules {
  return {
    trials: new Map(
      manifest.evals
        .filter(isObject)
        .map((e) => [e.evalId, Number.isInteger(e.trials) ? (e.trials as number) : undefined]),
    ),
    trialsBounded: !manifest.resumedWithChanges?.length,
  };
}

/** Why a line's record is not an attempt record as an export writes it; undefined when it is. */
export function recordProblem(value: unknown, rules: RecordRules): string | undefined {
  if (
    !isObject(value) ||
    typeof value.evalId !== "string" ||
    typeof value.caseId !== "string" ||
    typeof value.verdict !== "string"
  )
    return "is not an attempt record (it needs evalId, caseId and verdict)";
  if (!rules.trials.has(value.evalId))
    return `is an attempt of eval ${shown(value.evalId)}, which the manifest line does not list`;
  if (value.caseId === "") return "has an empty caseId";
  if (
    value.trial !== undefined &&
    !(typeof value.trial === "number" && Number.isInteger(value.trial) && value.trial >= 0)
  )
    return `has trial ${shown(value.trial)}; a trial is a whole number from 0`;
  const trials = rules.trials.get(value.evalId);
  if (
    rules.trialsBounded &&
    trials !== undefined &&
    typeof value.trial === "number" &&
    value.trial >= trials
  )
    return `has trial ${value.trial}, but the manifest line gives eval ${shown(value.evalId)} ${trials} trial${trials === 1 ? "" : "s"} per case (a record's trial is 0${trials > 1 ? ` to ${trials - 1}` : ""})`;
  if (
    value.index !== undefined &&
    !(typeof value.index === "number" && Number.isInteger(value.index) && value.index >= 0)
  )
    return `has index ${shown(value.index)}; a case index is a whole number from 0`;
  if (!VERDICTS.has(value.verdict))
    return `has verdict ${shown(value.verdict)}; a verdict is passed, failed, skipped or errored`;
  const score = scoreProblem(value.score);
  if (score) return score;
  if (!Array.isArray(value.judgments)) return "has no judgments list";
  for (const [i, judgment] of value.judgments.entries()) {
    const problem = judgmentProblem(judgment, i);
    if (problem) return problem;
  }
  const { usage } = value;
  if (!isObject(usage) || !isObject(usage.app) || !isObject(usage.judge))
    return "has no valid usage (an object with app and judge)";
  for (const count of JUDGE_COUNTS) {
    const n = usage.judge[count];
    if (n !== undefined && !isCount(n))
      return `has usage.judge.${count} ${shown(n)}; judge usage is counted in finite numbers from 0`;
  }
  const unpriced = unpricedProblem(usage.judge.unpriced);
  if (unpriced) return unpriced;
  const { error } = value;
  if (
    error !== undefined &&
    error !== null &&
    !(isObject(error) && typeof error.message === "string")
  )
    return `has error ${shown(error)}; an attempt's error is an object with a message (a string)`;
  if (typeof value.elapsedMs !== "number") return "has no elapsedMs";
  if (!isCount(value.elapsedMs))
    return `has elapsedMs ${shown(value.elapsedMs)}; an attempt's time is a finite number of milliseconds from 0`;
  return undefined;
}

/** Why `usage.judge.unpriced` is not what the engine writes (counts and model strings). */
function unpricedProblem(unpriced: unknown): string | undefined {
  if (unpriced === undefined) return undefined;
  const shape =
    isObject(unpriced) &&
    isCount(unpriced.calls) &&
    isCount(unpriced.inputTokens) &&
    isCount(unpriced.outputTokens) &&
    Array.isArray(unpriced.models) &&
    unpriced.models.every((model) => typeof model === "string");
  return shape
    ? undefined
    : `has usage.judge.unpriced ${shown(unpriced)}; it holds calls, inputTokens and outputTokens (finite numbers from 0) and models (strings)`;
}

function scoreProblem(score: unknown): string | undefined {
  if (!isObject(score) || !Array.isArray(score.reasons))
    return "has no valid score (an object with state, earned, max and reasons)";
  if (!SCORE_STATES.has(score.state as string))
    return `has score.state ${shown(score.state)}; a score is complete, partial or unavailable`;
  if (!isCount(score.max))
    return `has score.max ${shown(score.max)}; a score's max is a finite number from 0`;
  if (!(isCount(score.earned) && atMost(score.earned, score.max)))
    return `has score.earned ${shown(score.earned)}; a score earns a finite number from 0 to its max (score.max ${score.max})`;
  return undefined;
}

function judgmentProblem(judgment: unknown, i: number): string | undefined {
  if (
    !isObject(judgment) ||
    typeof judgment.label !== "string" ||
    typeof judgment.source !== "string" ||
    !JUDGMENT_STATES.has(judgment.state as string) ||
    typeof judgment.gate !== "boolean" ||
    typeof judgment.points !== "number" ||
    !(typeof judgment.earned === "number" || judgment.earned === null)
  )
    return `has an invalid judgment at index ${i} (it needs label, source, state, gate, points and earned)`;
  if (!isCount(judgment.points))
    return `has judgments[${i}].points ${shown(judgment.points)}; a judgment's points are a finite number from 0`;
  const { earned, points } = judgment;
  if (earned !== null && !(isCount(earned) && atMost(earned, points)))
    return `has judgments[${i}].earned ${shown(earned)}; a judgment earns null (no evidence) or a finite number from 0 to its points (${points})`;
  return undefined;
}
