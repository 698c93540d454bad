import type { AttemptRecord } from "../eval/record.js";
import type { EvalSummary } from "../runner/events.js";
import type { RunSummary } from "../runner/run.js";

/** Information about one eval as it starts, for reporters. */
export interface EvalInfo {
  evalId: string;
  style: "suite" | "score";
  file?: string;
}

/**
 * Receives a run's progress. Every hook is optional. Records arrive in case order within
 * each eval, and evals in discovery order, whatever the concurrency.
 */
export interface Reporter {
  onRunStart?(info: { runId: string; evals: number; files: number; concurrency: number }): void;
  onEvalStart?(info: EvalInfo): void;
  onCaseFinished?(record: AttemptRecord): void;
  onEvalFinished?(summary: EvalSummary): void;
  /** Progress tick: cases finished so far (any order). */
  onProgress?(done: number): void;
  onRunFinished?(summary: RunSummary): void | Promise<void>;
}
