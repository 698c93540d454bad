import { addAppUsage, emptyAppUsageTotals } from "../eval/app-usage-totals.js";
import { type AttemptRecord, addJudgeUsage, emptyJudgeUsage } from "../eval/record.js";
import type { RunEntry } from "./entry.js";
import type { EvalSummary } from "./events.js";
import { EvalAccumulator } from "./stats.js";
import type { RunSummary } from "./summary.js";
import { UnavailableTally } from "./unavailable.js";

/**
 * A run's running totals: per-eval summaries folded as records are released, run totals, judge
 * and application usage, and each eval's own time (from its first attempt's start to its last attempt's end, so
 * time spent queued behind other evals is not counted).
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

  constructor(entries: readonly RunEntry[], trials: (entry: number) => number) {
    this.totals = { evals: entries.length, cases: 0, passed: 0, failed: 0, errored: 0, skipped: 0 };
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
    addJudgeUsage(this.judge, record.usage.judge);
    addAppUsage(this.app, record.usage.app);
    this.unavailable.add(record, this.trials[entry]!);
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
