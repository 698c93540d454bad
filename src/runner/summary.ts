import type { AppUsageTotals } from "../eval/app-usage-totals.js";
import type { JudgeUsage } from "../eval/record.js";
import type { EvalSummary } from "./events.js";
import type { UnavailableSummary } from "./unavailable.js";

/**
 * A problem loading an eval file: the file failed to load, so none of its evals ran; or, with
 * `leftOut`, the file loaded and only the evals of those exports were left out (an id another eval
 * has, an id that cannot be used), the others running.
 */
export interface LoadError {
  file: string;
  message: string;
  /** The exports of the file whose evals were left out (`name`, `default`, `list[1]`). */
  leftOut?: string[] | undefined;
}

/** Totals over a run. */
export interface RunSummary {
  runId: string;
  startedAt: string;
  elapsedMs: number;
  evals: EvalSummary[];
  totals: {
    evals: number;
    /** Attempts (a case run k times counts k); the JSON reports write it as `attempts` too. */
    cases: number;
    passed: number;
    failed: number;
    errored: number;
    skipped: number;
    /**
     * Errored attempts the run's stop cut off (`error.interrupted`), in `errored` too: not judged,
     * so in no pass rate. Absent where a summary was made without it (0).
     */
    interrupted?: number;
  };
  judge: JudgeUsage;
  /** The application's usage its adapters reported, totalled over the run's attempts. */
  app: AppUsageTotals;
  /** Judgments that could not be made (a judge down), with their most frequent reasons. */
  unavailable?: UnavailableSummary;
  /** Files that failed to load, and evals left out of files that loaded (set by the CLI). */
  loadErrors: LoadError[];
  /**
   * The shard of a sharded run this run is (the CLI's `--shard i/n`, 1-based; a stored shard's
   * replay): its figures are of that shard's cases only, which the reports say.
   */
  shard?: { index: number; count: number } | undefined;
  /** Errors in user code that belonged to no attempt, with where they came from (when any). */
  runErrors?: string[];
  /**
   * True when nothing failed, errored or failed to load, and no error went outside every attempt.
   * The CLI's gates then decide: false when one is not met, true when failures are within
   * --min-pass-rate; it is what the exit code says.
   */
  ok: boolean;
  /**
   * The CLI's gates (--min-score, --min-pass-rate, --strict, --fail-on-regression) not met, and
   * a --filter that selected no case.
   */
  gates?: string[];
  /**
   * A name for each of `gates`, in order, the same from run to run (the flag and what it is
   * about, no figures: `--min-pass-rate: eval "qa"`), so CI's test history can follow a gate.
   */
  gateNames?: string[];
  /**
   * The CLI's gates that were checked and met, named as `gateNames` are (`--min-pass-rate: eval
   * "qa"`, `--fail-on-regression: pass rate`), so a report shows each gate asked for in every run.
   */
  gatesMet?: string[];
  /** Sinks (reporters, the store, telemetry) that failed, with what they said: their output is incomplete. */
  reportErrors?: string[];
  /** True when the run was cancelled through its signal; cases not yet started did not run. */
  cancelled: boolean;
  /** With `cancelled`, when the engine ran the run: what the stop left unstarted. */
  stopped?: StoppedRun;
}

/**
 * What a run's stop left unstarted: the attempts of the cases it had read, and the evals whose
 * cases it had not read to their end, whose other cases did not start either (how many is not
 * known: a dataset is read only as the run goes).
 */
export interface StoppedRun {
  /** Attempts of cases read before the stop that did not start (no record). */
  notStarted: number;
  /** Evals whose cases the stop left unread, in run order. */
  unread: string[];
  /**
   * Attempts recorded as errored because the stop came before they started (`error.notStarted`:
   * a queue job no worker had taken), counted in `totals.interrupted` too; absent when none.
   */
  beforeStart?: number;
  /**
   * Stored attempts a continuation was to run again (errored, or cut off by an earlier stop) that
   * the stop came before: reported as the store keeps them, with their earlier error, and counted
   * in the totals as such; absent when none.
   */
  notRunAgain?: number;
  /**
   * Of `notRunAgain`, the attempts an earlier stop had cut off (counted in `totals.interrupted`,
   * as their records are, but not by this stop, nor in `beforeStart`); absent when none.
   */
  earlierCut?: number;
}

/** The gate name of a --filter that selected no case (exit 2): the console says NO CASE RAN. */
export const NO_CASE_GATE = "--filter: selected no case";
