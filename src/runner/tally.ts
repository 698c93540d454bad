import { addAppUsage, emptyAppUsageTotals } from "../eval/app-usage-totals.js";
import { type AttemptRecord, addJudgeUsage, cutOff, emptyJudgeUsage } from "../eval/record.js";
import type { RunEntry } from "./entry.js";
import type { EvalSummary } from "./events.js";
import { EvalAccumulator } from "./stats.js";
import type { RunSummary, StoppedRun } from "./summary.js";
import { UnavailableTally } from "./unavailable.js";

/**
 * A run's running totals: per-eval summaries folded as records are released, run totals, judge
 * and application usage, each eval's own time (from its first attempt's start to its last
 * attempt's end, so time spent queued behind other evals is not counted), and what a stop left
 * unstarted.
 */
export class RunTally {
  readonly totals: RunSummary["totals"];
  readonly judge = emptyJudgeUsage();
  readonly app = emptyAppUsageTotals();
  readonly summaries: EvalSummary[] = [];
  readonly unavailable = new UnavailableTally();
  private readonly accumulators: EvalAccumulator[];
  /** Each eval's trials. */
  private readonly trials: number[];
  private readonly firstStart: number[];
  private readonly lastEnd: number[];
  private notStarted = 0;
  /** Records of attempts the stop came before they started (`error.notStarted`). */
  private beforeStart = 0;
  /** Stored attempts to run again that the stop came before (they keep their stored record). */
  private notRunAgain = 0;
  /** Of those, the ones an earlier stop had cut off, and of these the ones it stopped unstarted. */
  private earlierCut = 0;
  private earlierBeforeStart = 0;
  /** Evals whose cases a stop left unread. */
  private readonly unread = new Set<number>();

  constructor(entries: readonly RunEntry[], trials: (entry: number) => number) {
    this.totals = {
      evals: entries.length,
      cases: 0,
      passed: 0,
      failed: 0,
      errored: 0,
      skipped: 0,
      interrupted: 0,
    };
    this.trials = entries.map((_, index) => trials(index));
    this.accumulators = entries.map(
      (e, index) => new EvalAccumulator(e.eval.id, e.eval.style, this.trials[index]),
    );
    this.firstStart = entries.map(() => Number.NaN);
    this.lastEnd = entries.map(() => Number.NaN);
  }

  /** An attempt of this eval started at `at` (`performance.now()`; taken records come late). */
  attemptStarted(entry: number, at: number): void {
    if (!(this.firstStart[entry]! <= at)) this.firstStart[entry] = at;
  }

  attemptEnded(entry: number, at: number): void {
    if (!(this.lastEnd[entry]! >= at)) this.lastEnd[entry] = at;
  }

  /** Fold a released record (records arrive in case order). */
  add(entry: number, record: AttemptRecord): void {
    this.accumulators[entry]!.add(record);
    this.totals.cases++;
    this.totals[record.verdict]++;
    if (cutOff(record)) {
      this.totals.interrupted = (this.totals.interrupted ?? 0) + 1;
      if (record.error?.notStarted) this.beforeStart++;
    }
    addJudgeUsage(this.judge, record.usage.judge);
    addAppUsage(this.app, record.usage.app);
    this.unavailable.add(record, this.trials[entry]!);
  }

  /** An attempt of a case read before the run's stop did not start (it has no record). */
  attemptNotStarted(): void {
    this.notStarted++;
  }

  /**
   * A stored attempt that was to run again did not, for the stop: its stored record stands. One
   * an earlier stop cut off is counted apart, so it is not said to be cut off by this stop.
   */
  attemptNotRunAgain(record: AttemptRecord): void {
    this.notRunAgain++;
    if (!cutOff(record)) return;
    this.earlierCut++;
    if (record.error?.notStarted) this.earlierBeforeStart++;
  }

  /** The run's stop ended the reading of this eval's cases before its dataset ended. */
  casesUnread(entry: number): void {
    this.unread.add(entry);
  }

  /** What the stop left unstarted, the evals unread named in run order. */
  stopped(entries: readonly RunEntry[]): StoppedRun {
    const beforeStart = this.beforeStart - this.earlierBeforeStart;
    return {
      notStarted: this.notStarted,
      unread: [...this.unread].sort((a, b) => a - b).map((entry) => entries[entry]!.eval.id),
      ...(beforeStart > 0 ? { beforeStart } : {}),
      ...(this.notRunAgain > 0 ? { notRunAgain: this.notRunAgain } : {}),
      ...(this.earlierCut > 0 ? { earlierCut: this.earlierCut } : {}),
    };
  }

  finishEval(entry: number): EvalSummary {
    const start = this.firstStart[entry]!;
    const end = this.lastEnd[entry]!;
    const elapsed = Number.isNaN(start) || Number.isNaN(end) ? 0 : end - start;
    const summary = this.accumulators[entry]!.finish(elapsed);
    this.summaries.push(summary);
    return summary;
  }
}
