import type { AppUsageTotals } from "../eval/app-usage-totals.js";
import type { AttemptRecord, JudgeUsage, Judgment } from "../eval/record.js";
import type { TrialSummary } from "../stats/trials.js";

/** Schema id carried by every event; bump on breaking changes. */
export const EVAL_EVENT_SCHEMA = "niceeval/eval/v1" as const;

interface EventBase {
  schema: typeof EVAL_EVENT_SCHEMA;
  runId: string;
  evalId: string;
  /** ISO-8601 time the event was emitted. */
  timestamp: string;
}

/** Summary of one eval, as carried by `eval.finished` and shown in reports. */
export interface EvalSummary {
  evalId: string;
  style: "suite" | "score";
  /**
   * Attempts, under the name it has always had: a case run k times counts k. The JSON reports
   * write it as `attempts` too; with trials, `trials.cases` counts the cases.
   */
  cases: number;
  passed: number;
  failed: number;
  errored: number;
  skipped: number;
  /**
   * Errored attempts the run's stop cut off (`error.interrupted`), counted in `errored` too: they
   * were not judged, so they are in no pass rate. Absent from summaries stored before it was kept.
   */
  interrupted?: number;
  /**
   * Mean of earned/max over attempts whose score was complete or partial, skipped ones aside
   * (n = scoredCases).
   */
  meanScore: number | null;
  /** Sample standard deviation of earned/max, null below two cases. */
  sdScore: number | null;
  scoredCases: number;
  /** Cases whose score was partial (a lower bound). */
  partialCases: number;
  /**
   * Attempts, skipped ones aside, whose score was unavailable (a test that threw, evidence a
   * check could not get); left out when none. An eval without a mean score and without these has
   * no points at all (its checks are gates), and `--min-score` does not apply to it.
   */
  unscoredCases?: number;
  judge: JudgeUsage;
  /**
   * The application's usage its adapter reported, totalled over its attempts; always set by the
   * engine, absent only from summaries an older niceeval stored (`show` folds them again).
   */
  app?: AppUsageTotals;
  elapsedMs: number;
  /** Reducers over trials and flaky cases, when cases ran more than once. */
  trials?: TrialSummary;
  /**
   * Its cases could not all be read (its errored `(cases)` attempt): the dataset threw, hung or
   * the eval cannot run. No gate of the run passes then, whatever the figures of the cases read.
   */
  unread?: UnreadCases;
}

/** Where an eval's cases stopped being read, and why. */
export interface UnreadCases {
  /** Cases read before it failed (selected or not). */
  afterCases: number;
  /** The error of its `(cases)` attempt. */
  message: string;
}

/** Every event of a run, in order: started, per case (started, scored…, finished), finished. */
export type EvalEvent =
  | (EventBase & { kind: "eval.started"; style: "suite" | "score"; file?: string })
  | (EventBase & { kind: "eval.case.started"; caseId: string; index: number; trial?: number })
  | (EventBase & {
      kind: "eval.case.scored";
      caseId: string;
      judgment: Judgment;
      trial?: number;
    })
  | (EventBase & {
      kind: "eval.case.finished";
      caseId: string;
      record: AttemptRecord;
      trial?: number;
    })
  | (EventBase & { kind: "eval.finished"; summary: EvalSummary });

/** The kinds of {@link EvalEvent}. */
export type EvalEventKind = EvalEvent["kind"];
