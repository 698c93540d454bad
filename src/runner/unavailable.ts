import type { AttemptRecord, Judgment } from "../eval/record.js";

/** Judgments a run could not make (a judge down, evidence missing), grouped by reason. */
export interface UnavailableSummary {
  /** Judgments whose state is `unavailable`. */
  judgments: number;
  /** Attempts with at least one of them. */
  attempts: number;
  /**
   * Those attempts by the state of their score: `partial` (the points of those judgments stay in
   * the maximum), `unavailable` (no point could be judged), or `complete` (those judgments carried
   * no points: a check without a gate or weight).
   */
  scores: Record<"partial" | "unavailable" | "complete", number>;
  /** The most frequent reasons, most frequent first (at most {@link TOP_REASONS}). */
  reasons: UnavailableReason[];
}

/** One reason judgments were unavailable: how many, and where the first of them were. */
export interface UnavailableReason {
  reason: string;
  count: number;
  /** The first judgments it made unavailable, in the order their records came (at most {@link PLACES_PER_REASON}). */
  where: UnavailablePlace[];
}

/** A judgment a reason made unavailable: its eval, case (and trial) and label. */
export interface UnavailablePlace {
  evalId: string;
  caseId: string;
  /** The trial, when the eval ran several. */
  trial?: number;
  /** The judgment's label: a scorer's name, a check's label. */
  judgment: string;
  /** What made it: "scorer" or a scorer tool's id (a suite's scorers), "t.closeQA", "t.check"… */
  source: string;
}

/** Reasons kept in a summary. */
export const TOP_REASONS = 10;
/** Judgments named per reason: enough to find the cause, bounded however many it hit. */
export const PLACES_PER_REASON = 3;
/** Distinct reasons counted; past this, further new reasons are counted as one "other reasons". */
const MAX_DISTINCT = 1000;
const OTHER = "(other reasons)";

/** Folds the unavailable judgments of released records; memory bounded by {@link MAX_DISTINCT}. */
export class UnavailableTally {
  private judgments = 0;
  private attempts = 0;
  private readonly scores = { partial: 0, unavailable: 0, complete: 0 };
  private readonly byReason = new Map<string, { count: number; where: UnavailablePlace[] }>();

  /** `trials`: how many its eval ran, so a place names the trial only when there were several. */
  add(record: AttemptRecord, trials = 1): void {
    let found = false;
    for (const judgment of record.judgments) {
      if (judgment.state !== "unavailable") continue;
      found = true;
      this.judgments++;
      const reason = groupKey(judgment.reason);
      const key = this.byReason.has(reason) || this.byReason.size < MAX_DISTINCT ? reason : OTHER;
      let group = this.byReason.get(key);
      if (!group) {
        group = { count: 0, where: [] };
        this.byReason.set(key, group);
      }
      group.count++;
      if (group.where.length < PLACES_PER_REASON)
        group.where.push(placeOf(record, judgment, trials));
    }
    if (!found) return;
    this.attempts++;
    this.scores[record.score.state]++;
  }

  summary(): UnavailableSummary {
    const reasons = [...this.byReason]
      .map(([reason, { count, where }]) => ({ reason, count, where: [...where] }))
      .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason))
      .slice(0, TOP_REASONS);
    return {
      judgments: this.judgments,
      attempts: this.attempts,
      scores: { ...this.scores },
      reasons,
    };
  }
}

function placeOf(record: AttemptRecord, judgment: Judgment, trials: number): UnavailablePlace {
  const place: UnavailablePlace = {
    evalId: record.evalId,
    caseId: record.caseId,
    judgment: judgment.label,
    source: judgment.source,
  };
  // A stored record keeps trial 0 of an eval of one trial, which names no trial.
  if (trials > 1 || (record.trial ?? 0) > 0) place.trial = record.trial ?? 0;
  return place;
}

// Reasons quote cases and bodies; group on the first line, cut, so one outage is one group
// (also across scorers: the scorer a reason names goes, so a missing key is one reason, not one
// per scorer that needed the judge).
function groupKey(reason: string): string {
  const line = reason
    .split("\n", 1)[0]!
    .trim()
    .replace(/^scorer ".*?": /, "");
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
