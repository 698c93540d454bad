import type { AttemptRecord } from "../eval/record.js";
import { describeJudgment } from "../eval/to-vitest.js";
import { plural } from "../plural.js";
import { type Aggregation, aggregate } from "./aggregate.js";

/** One scorer's score for one item; `score: null` counted as 0. */
export interface ItemScore {
  name: string;
  score: number | null;
  /** Set when the scorer threw or returned a non-finite score. */
  error?: string;
  /** What the scorer returned beside its score. */
  metadata?: unknown;
}

/** The verdict of one data item, also stored on the Vitest test's `meta.niceeval`. */
export interface ItemOutcome {
  item: string;
  passed: boolean;
  /** The item's scores aggregated; errored scorers left out. */
  score: number;
  scores: ItemScore[];
  /** Set when the task threw or timed out. */
  taskError?: string;
  /** Set when niceeval stopped the task at the item's limit (`taskError` says after how long). */
  timedOut?: true;
}

/** What the messages name: the evaluation and its gate. */
export interface GateSettings {
  name: string;
  aggregation: Aggregation;
  threshold: number;
}

/** Aggregate a case's judgments and hold it to the threshold; any error fails the item. */
export function judgeItem(
  record: AttemptRecord,
  aggregation: Aggregation,
  threshold: number,
  taskTimedOut = false,
): ItemOutcome {
  const scores: ItemScore[] = record.judgments.map((judgment) => {
    if (judgment.state === "errored" || judgment.state === "unavailable") {
      return { name: judgment.label, score: null, error: describeJudgment(judgment) };
    }
    const entry: ItemScore = { name: judgment.label, score: judgment.value ?? null };
    if (judgment.detail !== undefined) entry.metadata = judgment.detail;
    return entry;
  });
  const counted = scores
    .filter((entry) => entry.error === undefined)
    .map((entry) => entry.score ?? 0);
  const score = aggregate(counted, aggregation);
  const failedToRun =
    record.error !== undefined || scores.some((entry) => entry.error !== undefined);
  const outcome: ItemOutcome = {
    item: record.caseId,
    passed: !failedToRun && score >= threshold,
    score,
    scores,
  };
  if (record.error) outcome.taskError = record.error.message;
  if (taskTimedOut) outcome.timedOut = true;
  return outcome;
}

/** Why an item failed, naming every scorer's score. */
export function itemFailureMessage(settings: GateSettings, outcome: ItemOutcome): string {
  const head = `evaluate "${settings.name}", item "${outcome.item}"`;
  if (outcome.taskError !== undefined)
    return `${head}: ${outcome.timedOut ? "" : "the task failed: "}${outcome.taskError}`;
  const errored = outcome.scores.filter((entry) => entry.error !== undefined).length;
  const comparison = outcome.score >= settings.threshold ? ">=" : "<";
  const gate = `${settings.aggregation} score ${format(outcome.score)} ${comparison} threshold ${settings.threshold}`;
  const lines = [
    errored > 0
      ? `${head}: ${plural(errored, "scorer")} errored, which fails the item (${gate} over the others)`
      : `${head}: ${gate}`,
  ];
  for (const entry of outcome.scores) {
    if (entry.error !== undefined) lines.push(`  ${entry.error}`);
    else
      lines.push(
        `  ${entry.name}: ${entry.score === null ? "null (counts as 0)" : format(entry.score)}`,
      );
  }
  return lines.join("\n");
}

/** One line over every item that ran: how many passed and their mean aggregated score. */
export function overallLine(settings: GateSettings, outcomes: readonly ItemOutcome[]): string {
  const passed = outcomes.filter((outcome) => outcome.passed).length;
  const scored = outcomes.filter((outcome) => outcome.taskError === undefined);
  const mean = aggregate(
    scored.map((outcome) => outcome.score),
    "mean",
  );
  const unscored = outcomes.length - scored.length;
  return (
    `niceeval evaluate "${settings.name}": ${passed}/${outcomes.length} items passed ` +
    `(${settings.aggregation} score >= ${settings.threshold}); ` +
    (scored.length > 0
      ? `mean item score ${format(mean)} (n=${scored.length})`
      : "no item scored") +
    (unscored > 0 ? `; ${unscored} task failure(s) not scored` : "")
  );
}

const format = (value: number) => String(Math.round(value * 1000) / 1000);
