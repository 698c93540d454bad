import { type AttemptRecord, cutOff, type Verdict } from "../eval/record.js";
import { type CaseSpread, CaseSpreadFold, shareInterval } from "./clustered.js";
import { type Interval, meanInterval } from "./interval.js";
import { RunningMean } from "./running.js";

// ---------------------------------------------------------------- per-case reducers

function checkCounts(n: number, c: number, k: number, name: string): void {
  if (!(Number.isInteger(n) && Number.isInteger(c) && Number.isInteger(k))) {
    throw new RangeError(`${name} needs integers, got n=${n}, c=${c}, k=${k}`);
  }
  if (n < 1 || c < 0 || c > n || k < 1 || k > n) {
    throw new RangeError(`${name} needs 0 ≤ c ≤ n and 1 ≤ k ≤ n, got n=${n}, c=${c}, k=${k}`);
  }
}

/**
 * pass@k: the chance that at least one of k trials drawn without replacement from n (c of them
 * passing) passes. The unbiased estimator of Chen et al. 2021, 1 − C(n−c, k)/C(n, k), computed
 * as 1 − ∏_{i=n−c+1}^{n} (1 − k/i) so that no factorial is formed.
 * @example
 * passAtK(5, 2, 1); // 0.4
 * passAtK(5, 2, 2); // 0.7
 */
export function passAtK(n: number, c: number, k: number): number {
  checkCounts(n, c, k, "passAtK");
  if (n - c < k) return 1;
  let allFail = 1;
  for (let i = n - c + 1; i <= n; i++) allFail *= 1 - k / i;
  return 1 - allFail;
}

/**
 * pass^k: the chance that all of k trials drawn without replacement pass, C(c, k)/C(n, k),
 * computed as ∏_{i=0}^{k−1} (c − i)/(n − i).
 * @example
 * passHatK(5, 2, 2); // 0.1
 */
export function passHatK(n: number, c: number, k: number): number {
  checkCounts(n, c, k, "passHatK");
  if (c < k) return 0;
  let all = 1;
  for (let i = 0; i < k; i++) all *= (c - i) / (n - i);
  return all;
}

/** at-least-k: whether at least k of the trials passed (1 or 0). */
export function atLeastK(n: number, c: number, k: number): number {
  checkCounts(n, c, k, "atLeastK");
  return c >= k ? 1 : 0;
}

/** Median of a list of numbers (mean of the middle two for an even count); null when empty. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Score of one attempt as earned/max when it is complete and carries points; null otherwise. */
export function completeScore(record: Pick<AttemptRecord, "score">): number | null {
  const { state, earned, max } = record.score;
  return state === "complete" && max > 0 ? earned / max : null;
}

// ---------------------------------------------------------------- per-eval summary

/** A per-case figure averaged over the cases where it is defined, with its n and interval. */
export interface CaseAverage {
  value: number | null;
  /** Cases averaged. */
  cases: number;
  /**
   * 95% interval over the cases. A share (pass@k, pass^k, at-least-k, all or any passed) has the
   * one a pass rate has (src/stats/clustered.ts: Wilson's with the effective number of cases its
   * spread is worth, so pass@1 has the pass rate's interval when every case ran as many trials);
   * a score, Student's t, null below two cases and when the values are alike but for rounding.
   */
  interval: Interval | null;
}

/** pass@k, pass^k and at-least-k for one k, each averaged over the cases with at least k trials. */
export interface KReducers {
  k: number;
  passAtK: CaseAverage;
  passHatK: CaseAverage;
  atLeastK: CaseAverage;
}

/** A case whose trials disagree on the verdict. */
export interface FlakyCase {
  caseId: string;
  index?: number;
  /** Verdicts in trial order. */
  verdicts: Verdict[];
  passed: number;
  trials: number;
}

/** What the trials of one eval say: reducers over cases, and which cases are flaky. */
export interface TrialSummary {
  evalId: string;
  /** Cases with at least one judged trial: not skipped, and not cut off by the run's stop. */
  cases: number;
  /**
   * Cases with at least one scored trial (complete or partial, not skipped): the cases the
   * eval's mean score comes from, which its interval counts.
   */
  scoredCases: number;
  attempts: number;
  /** Attempts skipped (t.skip): in `attempts`, in no reducer and no score. */
  skipped: number;
  /**
   * Attempts the run's stop cut off (errored, `error.interrupted`): in `attempts`, in no reducer,
   * since they were not judged. Absent from summaries stored before it was kept.
   */
  interrupted?: number;
  /** Fewest and most judged trials of a case. */
  trials: { min: number; max: number };
  /** Per-case mean, median and max of the complete trial scores, averaged over cases. */
  score: { mean: CaseAverage; median: CaseAverage; max: CaseAverage };
  /** One entry per k (1, 2, 5, 10, 20, 50… up to the most trials, and that most), ascending. */
  byK: KReducers[];
  /** Share of cases whose every trial passed (pass^n). */
  allPassed: CaseAverage;
  /** Share of cases with at least one passing trial (pass@n). */
  anyPassed: CaseAverage;
  flaky: { count: number; cases: FlakyCase[]; truncated: boolean };
  /**
   * The per-case sums the intervals of the eval's pass rate and mean score come from, which count
   * cases (src/stats/clustered.ts). Absent from summaries stored before they were kept: those
   * intervals are then the cautious ones the counts allow.
   */
  spread?: CaseSpread;
}

/**
 * The mean and spread of a per-case figure, one value per case, with their interval over the
 * cases averaged; `units` counts the judged trials behind those values.
 */
class Running extends RunningMean {
  units = 0;

  addCase(value: number, trials: number): void {
    this.add(value);
    this.units += trials;
  }

  /** A score's average: Student's t over the cases. */
  average(): CaseAverage {
    const { mean } = this;
    return {
      value: mean,
      cases: this.n,
      interval: mean === null ? null : clamp(meanInterval(mean, this.sd, this.n)),
    };
  }

  /** A share's average: the interval a pass rate over these cases and trials has. */
  share(): CaseAverage {
    const { mean, sd } = this;
    return {
      value: mean,
      cases: this.n,
      interval:
        mean === null
          ? null
          : shareInterval(mean, sd === null ? 0 : (sd * sd) / this.n, this.units, this.n),
    };
  }
}

// Every averaged figure (a score, a pass@k) lies in [0, 1]; the normal approximation can overshoot.
const clamp = (interval: Interval | null): Interval | null =>
  interval && { ...interval, low: Math.max(0, interval.low), high: Math.min(1, interval.high) };

/** 1, 2, 5, 10, 20, 50, … */
const isDefaultK = (k: number): boolean => {
  const decade = 10 ** Math.floor(Math.log10(k) + 1e-9);
  const lead = Math.round(k / decade);
  return lead * decade === k && (lead === 1 || lead === 2 || lead === 5);
};

/**
 * Folds one eval's attempts into a {@link TrialSummary} as they stream: records arrive in case
 * order with the trials of a case consecutive. Memory is one case's trials plus a bounded list
 * of flaky cases. Skipped trials, and trials the run's stop cut off, count neither as passed nor
 * as trials (they were not judged); other errored ones do not pass. A case is flaky when the
 * verdicts of its judged trials are not all the same.
 * @example
 * const trials = new TrialAccumulator("qa");
 * for await (const record of store.streamAttempts(runId, { evalId: "qa" })) trials.add(record);
 * trials.finish().byK[0]?.passAtK.value;
 */
export class TrialAccumulator {
  private readonly maxFlaky: number;
  private readonly ks: readonly number[] | undefined;
  private current: {
    caseId: string;
    index?: number;
    verdicts: Verdict[];
    /** The verdicts of its judged trials: not skipped, not cut off. */
    judged: Verdict[];
    scores: number[];
    /** Scored trials (complete or partial) and the sum of their earned/max. */
    scored: number;
    scoreSum: number;
  } | null = null;
  private readonly spread = new CaseSpreadFold();
  private cases = 0;
  private scoredCases = 0;
  private attempts = 0;
  private skipped = 0;
  private interrupted = 0;
  private minTrials = Number.POSITIVE_INFINITY;
  private maxTrials = 0;
  private readonly meanScore = new Running();
  private readonly medianScore = new Running();
  private readonly maxScore = new Running();
  private readonly allPassed = new Running();
  private readonly anyPassed = new Running();
  private readonly byK = new Map<number, { at: Running; hat: Running; least: Running }>();
  private readonly flaky: FlakyCase[] = [];
  private flakyCount = 0;

  constructor(
    readonly evalId: string,
    options: { ks?: readonly number[]; maxFlaky?: number } = {},
  ) {
    this.maxFlaky = options.maxFlaky ?? 1000;
    if (options.ks?.some((k) => !(Number.isInteger(k) && k >= 1))) {
      throw new RangeError(`TrialAccumulator ks must be positive integers, got ${options.ks}`);
    }
    this.ks = options.ks;
  }

  add(record: AttemptRecord): void {
    this.attempts++;
    if (this.current?.caseId !== record.caseId) {
      this.closeCase();
      this.current = {
        caseId: record.caseId,
        verdicts: [],
        judged: [],
        scores: [],
        scored: 0,
        scoreSum: 0,
      };
      if (record.index !== undefined) this.current.index = record.index;
    }
    this.current.verdicts.push(record.verdict);
    if (record.verdict === "skipped") this.skipped++;
    else if (cutOff(record)) this.interrupted++;
    else this.current.judged.push(record.verdict);
    const score = record.verdict === "skipped" ? null : completeScore(record);
    if (score !== null) this.current.scores.push(score);
    // Scored as the eval's mean score counts it: complete or partial, not skipped.
    const { state, earned, max } = record.score;
    if (record.verdict !== "skipped" && state !== "unavailable" && max > 0) {
      this.current.scored++;
      this.current.scoreSum += earned / max;
    }
  }

  private closeCase(): void {
    const current = this.current;
    this.current = null;
    if (!current) return;
    if (current.scored > 0) this.scoredCases++;
    const counted = current.judged;
    const n = counted.length;
    const c = counted.filter((verdict) => verdict === "passed").length;
    this.spread.addCase(c, n, current.scoreSum, current.scored);
    if (n > 0) {
      this.cases++;
      this.minTrials = Math.min(this.minTrials, n);
      this.maxTrials = Math.max(this.maxTrials, n);
      this.allPassed.addCase(c === n ? 1 : 0, n);
      this.anyPassed.addCase(c > 0 ? 1 : 0, n);
      for (let k = 1; k <= n; k++) {
        if (this.ks ? !this.ks.includes(k) : !isDefaultK(k) && k !== n) continue;
        let reducers = this.byK.get(k);
        if (!reducers) {
          reducers = { at: new Running(), hat: new Running(), least: new Running() };
          this.byK.set(k, reducers);
        }
        reducers.at.addCase(passAtK(n, c, k), n);
        reducers.hat.addCase(passHatK(n, c, k), n);
        reducers.least.addCase(c >= k ? 1 : 0, n);
      }
    }
    if (current.scores.length > 0) {
      let sum = 0;
      let max = Number.NEGATIVE_INFINITY;
      for (const score of current.scores) {
        sum += score;
        max = Math.max(max, score);
      }
      this.meanScore.add(sum / current.scores.length);
      this.medianScore.add(median(current.scores)!);
      this.maxScore.add(max);
    }
    // A skipped trial is no verdict, nor is one cut off: skipped once and passed twice is not flaky.
    if (counted.some((verdict) => verdict !== counted[0])) {
      this.flakyCount++;
      if (this.flaky.length < this.maxFlaky) {
        const flaky: FlakyCase = {
          caseId: current.caseId,
          verdicts: current.verdicts,
          passed: counted.filter((verdict) => verdict === "passed").length,
          trials: counted.length,
        };
        if (current.index !== undefined) flaky.index = current.index;
        this.flaky.push(flaky);
      }
    }
  }

  finish(): TrialSummary {
    this.closeCase();
    return {
      evalId: this.evalId,
      cases: this.cases,
      scoredCases: this.scoredCases,
      attempts: this.attempts,
      skipped: this.skipped,
      interrupted: this.interrupted,
      trials: { min: this.cases > 0 ? this.minTrials : 0, max: this.maxTrials },
      score: {
        mean: this.meanScore.average(),
        median: this.medianScore.average(),
        max: this.maxScore.average(),
      },
      byK: [...this.byK.entries()]
        .sort(([a], [b]) => a - b)
        .map(([k, r]) => ({
          k,
          passAtK: r.at.share(),
          passHatK: r.hat.share(),
          atLeastK: r.least.share(),
        })),
      allPassed: this.allPassed.share(),
      anyPassed: this.anyPassed.share(),
      flaky: {
        count: this.flakyCount,
        cases: this.flaky,
        truncated: this.flakyCount > this.flaky.length,
      },
      spread: this.spread.result(),
    };
  }
}
