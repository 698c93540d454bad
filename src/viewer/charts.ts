import { type AttemptRecord, cutOff } from "../eval/record.js";
import {
  addShareCase,
  emptyShareSums,
  passRateInterval,
  type ShareSums,
} from "../stats/clustered.js";
import type { Interval } from "../stats/interval.js";
import type { Store } from "../store/types.js";

/** The Run page's charts: score distribution per eval, pass rate per scorer. */
export interface RunCharts {
  evals: ScoreHistogram[];
  scorers: ScorerRate[];
}

/** Scores (earned / max) of an eval's attempts in ten bins; unavailable ones counted aside. */
export interface ScoreHistogram {
  evalId: string;
  bins: number[];
  /** Attempts whose score is a lower bound (binned by it). */
  partial: number;
  /** Attempts with no score at all: not binned, never a zero. */
  unavailable: number;
}

/**
 * A scorer (judgment label) of an eval: how often it matched among the attempts it judged, those
 * the run's stop cut off aside (what their judgments judged was the interruption).
 */
export interface ScorerRate {
  evalId: string;
  label: string;
  matched: number;
  mismatched: number;
  errored: number;
  unavailable: number;
  /**
   * matched + mismatched: unavailable judgments (no evidence) and errored ones (the scorer could
   * not judge; their 0 is no score) are left out, as every mean leaves them out.
   */
  judged: number;
  /** The cases those judged attempts are trials of: with trials, fewer than `judged`. */
  cases: number;
  passRate: number | null;
  /** Over cases, not attempts, when they ran trials (stats/clustered.ts), as every report's. */
  passRateInterval: Interval | null;
}

/**
 * A scorer's counts as they are folded: the case it last judged, to count each case once, its
 * matched and judged trials so far, and the per-case counts of the cases before it.
 */
type ScorerFold = ScorerRate & {
  lastCase: string | undefined;
  caseMatched: number;
  caseJudged: number;
  sums: ShareSums;
};

const BINS = 10;

/**
 * Folds attempts into {@link RunCharts}: one pass, memory bounded by evals × labels. Attempts come
 * in case order (as `streamAttempts` gives them), so a case's trials are next to each other.
 */
export class ChartFold {
  readonly #evals = new Map<string, ScoreHistogram>();
  readonly #scorers = new Map<string, ScorerFold>();

  add(record: AttemptRecord): void {
    let e = this.#evals.get(record.evalId);
    if (!e) {
      e = { evalId: record.evalId, bins: Array(BINS).fill(0), partial: 0, unavailable: 0 };
      this.#evals.set(record.evalId, e);
    }
    const { score } = record;
    if (score.state === "unavailable" || score.max <= 0) e.unavailable++;
    else {
      if (score.state === "partial") e.partial++;
      const bin = Math.min(BINS - 1, Math.max(0, Math.floor((score.earned / score.max) * BINS)));
      e.bins[bin]!++;
    }
    // The stop cut it off: its judgments judged the interruption, not the application.
    if (cutOff(record)) return;
    for (const j of record.judgments) {
      const key = `${record.evalId}\n${j.label}`;
      let s = this.#scorers.get(key);
      if (!s) {
        s = {
          evalId: record.evalId,
          label: j.label,
          matched: 0,
          mismatched: 0,
          errored: 0,
          unavailable: 0,
          judged: 0,
          cases: 0,
          passRate: null,
          passRateInterval: null,
          lastCase: undefined,
          caseMatched: 0,
          caseJudged: 0,
          sums: emptyShareSums(),
        };
        this.#scorers.set(key, s);
      }
      s[j.state]++;
      if (j.state !== "matched" && j.state !== "mismatched") continue;
      if (s.lastCase !== record.caseId) {
        addShareCase(s.sums, s.caseMatched, s.caseJudged);
        s.caseMatched = 0;
        s.caseJudged = 0;
        s.cases++;
        s.lastCase = record.caseId;
      }
      s.caseJudged++;
      if (j.state === "matched") s.caseMatched++;
    }
  }

  result(): RunCharts {
    const scorers = [...this.#scorers.values()].map((fold): ScorerRate => {
      const { lastCase: _, caseMatched, caseJudged, sums, ...s } = fold;
      const all = { ...sums };
      addShareCase(all, caseMatched, caseJudged);
      const judged = s.matched + s.mismatched;
      return {
        ...s,
        judged,
        passRate: judged > 0 ? s.matched / judged : null,
        passRateInterval: passRateInterval(s.matched, judged, s.cases, all),
      };
    });
    return { evals: [...this.#evals.values()], scorers };
  }
}

/** A run's charts, streamed from the store (no whole-run load). */
export async function runCharts(store: Store, runId: string): Promise<RunCharts> {
  const fold = new ChartFold();
  for await (const record of store.streamAttempts(runId)) fold.add(record);
  return fold.result();
}
