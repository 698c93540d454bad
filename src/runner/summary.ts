import type { JudgeUsage } from "../eval/record.js";
import type { EvalSummary } from "./events.js";
import type { UnavailableSummary } from "./unavailable.js";

/** Totals over a run. */
export interface RunSummary {
  runId: string;
  startedAt: string;
  elapsedMs: number;
  evals: EvalSummary[];
  totals: {
    evals: number;
    /** Attempts (a case run k times counts k). */
    cases: number;
    passed: number;
    failed: number;
    errored: number;
    skipped: number;
  };
  judge: JudgeUsage;
  /** Judgments that could not be made (a judge down), with their most frequent reasons. */
  unavailable?: UnavailableSummary;
  /** Files that failed to load (set by the CLI). */
  loadErrors: { file: string; message: string }[];
  /** Errors in user code that belonged to no attempt, with where they came from (when any). */
  runErrors?: string[];
  /**
   * True when nothing failed, errored or failed to load, and no error went outside every attempt.
   * The CLI's gates then decide: false when one is not met, true when failures are within
   * --min-pass-rate; it is what the exit code says.
   */
  ok: boolean;
  /** The CLI's gates (--min-score, --min-pass-rate, --strict, --fail-on-regression) not met. */
  gates?: string[];
  /**
   * A name for each of `gates`, in order, the same from run to run (the flag and what it is
   * about, no figures: `--min-pass-rate: eval "qa"`), so CI's test history can follow a gate.
   */
  gateNames?: string[];
  /** Sinks (reporters, the store, telemetry) that failed, with what they said: their output is incomplete. */
  reportErrors?: string[];
  /** True when the run was cancelled through its signal; cases not yet started did not run. */
  cancelled: boolean;
}
