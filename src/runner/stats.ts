import { addAppUsage, emptyAppUsageTotals } from "../eval/app-usage-totals.js";
import { DATASET_ERROR_ID } from "../eval/ids.js";
import { type AttemptRecord, addJudgeUsage, cutOff, emptyJudgeUsage } from "../eval/record.js";
import { RunningMean } from "../stats/running.js";
import { TrialAccumulator } from "../stats/trials.js";
import type { EvalSummary } from "./events.js";

/** Folds attempt records into an eval summary without keeping them. */
export class EvalAccumulator {
  private readonly summary: EvalSummary;
  private readonly scores = new RunningMean();
  private readonly app = emptyAppUsageTotals();

  private readonly trials: TrialAccumulator | undefined;

  constructor(evalId: string, style: "suite" | "score", trials = 1) {
    this.trials = trials > 1 ? new TrialAccumulator(evalId) : undefined;
    this.summary = {
      evalId,
      style,
      cases: 0,
      passed: 0,
      failed: 0,
      errored: 0,
      skipped: 0,
      interrupted: 0,
      meanScore: null,
      sdScore: null,
      scoredCases: 0,
      partialCases: 0,
      judge: emptyJudgeUsage(),
      app: this.app,
      elapsedMs: 0,
    };
  }

  add(record: AttemptRecord): void {
    this.trials?.add(record);
    const s = this.summary;
    s.cases++;
    s[record.verdict]++;
    if (cutOff(record)) s.interrupted = (s.interrupted ?? 0) + 1;
    addJudgeUsage(s.judge, record.usage.judge);
    addAppUsage(this.app, record.usage.app);
    if (record.caseId === DATASET_ERROR_ID && record.verdict === "errored") {
      s.unread = { afterCases: record.index ?? 0, message: record.error?.message ?? "" };
    }
    const { state, earned, max } = record.score;
    // A skipped attempt is out of the mean as it is out of the pass rate (records made before
    // t.skip made the score unavailable may still read complete).
    if (record.verdict === "skipped") return;
    if (state === "unavailable") s.unscoredCases = (s.unscoredCases ?? 0) + 1;
    else if (max > 0) {
      if (state === "partial") s.partialCases++;
      s.scoredCases++;
      this.scores.add(earned / max);
    }
  }

  finish(elapsedMs: number): EvalSummary {
    const s = this.summary;
    s.meanScore = this.scores.mean;
    s.sdScore = this.scores.sd;
    s.elapsedMs = elapsedMs;
    if (this.trials) s.trials = this.trials.finish();
    return s;
  }
}
