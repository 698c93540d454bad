import {
  type AttemptRecord,
  addJudgeUsage,
  emptyJudgeUsage,
  type JudgeUsage,
} from "../eval/record.js";
import { describeJudgment } from "../eval/to-vitest.js";
import { plural } from "../plural.js";
import { formatJudgeUsage } from "../report/format.js";
import { below } from "../threshold.js";
import { type Aggregation, aggregate } from "./aggregate.js";

/** One scorer's score for one item; `score: null` from the scorer counts as 0. */
export interface ItemScore {
  name: string;
  /** The scorer's score; null when it returned null (counted as 0), errored or was unavailable. */
  score: number | null;
  /** Set when the scorer threw, returned a non-finite score or timed out. */
  error?: string;
  /** Set when its evidence was unavailable (a judge without a key): no score, never a 0. */
  unavailable?: string;
  /** What the scorer returned beside its score. */
  metadata?: unknown;
}

/** The verdict of one data item, also stored (as a JSON-safe copy) on the Vitest test's `meta.niceeval`. */
export interface ItemOutcome {
  item: string;
  passed: boolean;
  /**
   * The item's scores aggregated; null when one is missing (the item is invalid, the task failed
   * or timed out, a scorer errored or its score is unavailable): the item then fails and the
   * summary's mean leaves it out.
   */
  score: number | null;
  scores: ItemScore[];
  /** What the item's judge calls took (calls, cache hits, tokens, cost); set when it made any. */
  judge?: JudgeUsage;
  /** Set when the task threw or timed out. */
  taskError?: string;
  /** Set when niceeval stopped the task at the item's limit (`taskError` says after how long). */
  timedOut?: true;
  /**
   * Set when the data item cannot run (it has no `input`, or a field named `signal`): it is not
   * run, has no score and fails.
   */
  itemError?: string;
  /**
   * Set when Vitest failed the item's test for a reason of its own after niceeval passed the
   * item (an `expect.soft` in the task or a scorer, an `afterEach` hook), or before niceeval
   * judged it (Vitest's own timeout): the first error Vitest recorded. The item does not pass,
   * whatever its score.
   */
  testError?: string;
}

/** What the messages name: the evaluation and its gate. */
export interface GateSettings {
  name: string;
  aggregation: Aggregation;
  threshold: number;
}

/**
 * Aggregate a case's judgments and hold it to the threshold. A missing score (task error,
 * errored or unavailable scorer) fails the item and leaves it without a score.
 */
export function judgeItem(
  record: AttemptRecord,
  aggregation: Aggregation,
  threshold: number,
  taskTimedOut = false,
): ItemOutcome {
  const scores: ItemScore[] = record.judgments.map((judgment) => {
    if (judgment.state === "errored")
      return { name: judgment.label, score: null, error: describeJudgment(judgment) };
    if (judgment.state === "unavailable")
      return { name: judgment.label, score: null, unavailable: describeJudgment(judgment) };
    const entry: ItemScore = { name: judgment.label, score: judgment.value ?? null };
    if (judgment.detail !== undefined) entry.metadata = judgment.detail;
    return entry;
  });
  const complete = record.error === undefined && scores.every(isScored);
  const score = complete
    ? aggregate(
        scores.map((entry) => entry.score ?? 0),
        aggregation,
      )
    : null;
  const outcome: ItemOutcome = {
    item: record.caseId,
    // As the CLI's gates: 0.7 three times averages to 0.6999999999999998, which meets 0.7.
    passed: score !== null && !below(score, threshold),
    score,
    scores,
  };
  const judge = record.usage.judge;
  if (judge.calls + judge.cachedCalls > 0) outcome.judge = judge;
  if (record.error) outcome.taskError = record.error.message;
  if (taskTimedOut) outcome.timedOut = true;
  return outcome;
}

/** A data item that cannot run (`problem` says why): no score, and it fails. */
export function invalidItem(item: string, problem: string): ItemOutcome {
  return { item, passed: false, score: null, scores: [], itemError: problem };
}

const isScored = (entry: ItemScore) => entry.error === undefined && entry.unavailable === undefined;

/** Why an item failed, naming every scorer's score. */
export function itemFailureMessage(settings: GateSettings, outcome: ItemOutcome): string {
  const head = `evaluate "${settings.name}", item "${outcome.item}"`;
  if (outcome.taskError !== undefined)
    return `${head}: ${outcome.timedOut ? "" : "the task failed: "}${outcome.taskError}`;
  const errored = outcome.scores.filter((entry) => entry.error !== undefined).length;
  const unavailable = outcome.scores.filter((entry) => entry.unavailable !== undefined).length;
  const scored = outcome.scores.filter(isScored);
  const gate = (score: number) =>
    `${settings.aggregation} score ${format(score)} ${below(score, settings.threshold) ? "<" : ">="} threshold ${settings.threshold}`;
  let first: string;
  if (outcome.score !== null) first = `${head}: ${gate(outcome.score)}`;
  else {
    const missing = [
      errored > 0 ? `${plural(errored, "scorer")} errored` : "",
      unavailable > 0 ? `${plural(unavailable, "score")} unavailable` : "",
    ].filter((part) => part !== "");
    // What the others would give, to show how far the item was, never as its score.
    const others = scored.length
      ? ` (${gate(
          aggregate(
            scored.map((entry) => entry.score ?? 0),
            settings.aggregation,
          ),
        )} over the others)`
      : "";
    first = `${head}: ${missing.join(" and ")}, which fails the item${others}`;
  }
  const lines = [first];
  for (const entry of outcome.scores) {
    const missing = entry.error ?? entry.unavailable;
    if (missing !== undefined) lines.push(`  ${missing}`);
    else
      lines.push(
        `  ${entry.name}: ${entry.score === null ? "null (counts as 0)" : format(entry.score)}`,
      );
  }
  return lines.join("\n");
}

/** Why items have no score, in the order the summary lists them. */
const MISSING_REASONS = [
  "invalid item",
  "task failed",
  "scorer errored",
  "score unavailable",
  "test failed",
] as const;

/**
 * Why an item has no score, for the summary: the first of an invalid item, the task, an error,
 * an unavailable score, and Vitest failing its test before niceeval judged it.
 */
function missingReason(outcome: ItemOutcome): (typeof MISSING_REASONS)[number] | undefined {
  if (outcome.score !== null) return undefined;
  if (outcome.itemError !== undefined) return "invalid item";
  if (outcome.taskError !== undefined) return "task failed";
  if (outcome.scores.some((entry) => entry.error !== undefined)) return "scorer errored";
  if (outcome.scores.some((entry) => entry.unavailable !== undefined)) return "score unavailable";
  return "test failed";
}

/**
 * One line over every item whose test ran: how many passed, the mean score of the items that
 * have one, how many have none and why, and how many reached the threshold but did not pass,
 * Vitest having failed their test (see {@link ItemOutcome.testError}), so that the line agrees
 * with Vitest's count; then what the judge calls took, when there were any.
 */
export function overallLine(settings: GateSettings, outcomes: readonly ItemOutcome[]): string {
  const passed = outcomes.filter((outcome) => outcome.passed).length;
  const scores = outcomes.flatMap((outcome) => (outcome.score === null ? [] : [outcome.score]));
  const reasons = new Map<string, number>(MISSING_REASONS.map((reason) => [reason, 0]));
  for (const outcome of outcomes) {
    const reason = missingReason(outcome);
    if (reason !== undefined) reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  }
  const unscored = outcomes.length - scores.length;
  const failedByVitest = outcomes.filter(
    (outcome) => outcome.score !== null && outcome.testError !== undefined,
  ).length;
  return (
    `niceeval evaluate "${settings.name}": ${passed}/${outcomes.length} items passed ` +
    `(${settings.aggregation} score >= ${settings.threshold}); ` +
    (scores.length > 0
      ? `mean item score ${format(aggregate(scores, "mean"))} (n=${scores.length})`
      : "no item scored") +
    (unscored > 0
      ? `; ${plural(unscored, "item")} not scored (${[...reasons]
          .filter(([, count]) => count > 0)
          .map(([reason, count]) => `${reason}: ${count}`)
          .join(", ")})`
      : "") +
    (failedByVitest > 0
      ? `; ${plural(failedByVitest, "item")} reached the threshold but ${failedByVitest === 1 ? "its test" : "their tests"} failed in Vitest, so ${failedByVitest === 1 ? "it does" : "they do"} not pass`
      : "") +
    judgeUsageOf(outcomes)
  );
}

/** `; judge: …` over the items' judge calls, as a run's summary says it; empty when none. */
function judgeUsageOf(outcomes: readonly ItemOutcome[]): string {
  const total = emptyJudgeUsage();
  for (const outcome of outcomes) addJudgeUsage(total, outcome.judge);
  return total.calls + total.cachedCalls > 0 ? `; judge: ${formatJudgeUsage(total)}` : "";
}

const format = (value: number) => String(Math.round(value * 1000) / 1000);
