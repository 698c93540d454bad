import type { AttemptRecord, Judgment } from "../eval/record.js";
import { trialLabel } from "../eval/trial-label.js";
import { judgmentRole, oneLine } from "./format.js";
import { shownId } from "./shown-id.js";

/** Verdicts that CI reports call out. */
export const isProblem = (record: AttemptRecord): boolean =>
  record.verdict === "failed" || record.verdict === "errored";

/**
 * "c3" or, when the eval runs several trials, "c3 [trial 2]" (trials counted from 1); a blank id
 * quoted (`shownId`).
 */
export function attemptName(record: AttemptRecord, trials: number | undefined): string {
  return `${shownId(record.caseId)}${trialLabel(record.trial, trials)}`;
}

/**
 * The judgments that decided a failed or errored verdict: mismatched gates for a failure;
 * errored judgments and gates without evidence for an error (the rules of decideVerdict).
 */
export function decidingJudgments(record: AttemptRecord): Judgment[] {
  if (record.verdict === "failed")
    return record.judgments.filter((j) => j.gate && j.state === "mismatched");
  if (record.verdict === "errored")
    return record.judgments.filter(
      (j) => j.state === "errored" || (j.gate && j.state === "unavailable"),
    );
  return [];
}

/** "exact (gate): mismatched — expected 4, got 5" on one bounded line. */
export function describeJudgment(judgment: Judgment, max = 400): string {
  return oneLine(
    `${judgment.label} (${judgmentRole(judgment)}): ${judgment.state} — ${judgment.reason}`,
    max,
  );
}

/** One line saying why an attempt failed, errored or was skipped (empty when it passed). */
export function problemSummary(record: AttemptRecord, max = 400): string {
  if (record.verdict === "skipped") return oneLine(record.skipReason ?? "skipped", max);
  const parts: string[] = [];
  if (record.error) parts.push(`${record.error.where}: ${record.error.message}`);
  for (const judgment of decidingJudgments(record)) parts.push(describeJudgment(judgment, max));
  if (parts.length === 0 && record.verdict !== "passed") parts.push(record.verdict);
  return oneLine(parts.join("; "), max);
}

/**
 * A record as the JSON reports write it (`--json`, NDJSON, `show --json`): a failed, errored or
 * skipped one gains `reason`, after its verdict, the line {@link problemSummary} gives the
 * Markdown and JUnit reports (an attempt errored by a gate without evidence has no `error`).
 */
export function withVerdictReason(record: AttemptRecord): AttemptRecord & { reason?: string } {
  if (record.verdict === "passed") return record;
  const { evalId, caseId, verdict } = record;
  // These keys first, so `reason` is read beside the verdict; the record's own values follow.
  return Object.assign({ evalId, caseId, verdict, reason: problemSummary(record, 2000) }, record);
}

/**
 * Why an errored attempt that has no `error` of its own is errored, by label: each gate without
 * evidence and each errored judgment (their reasons are on their own lines); undefined otherwise.
 */
export function erroredBecause(record: AttemptRecord): string | undefined {
  if (record.verdict !== "errored" || record.error) return undefined;
  const causes = decidingJudgments(record).map((j) =>
    j.state === "errored"
      ? `"${j.label}" (${j.source}) errored`
      : `gate "${j.label}" has no evidence`,
  );
  return causes.length > 0 ? causes.join("; ") : undefined;
}
