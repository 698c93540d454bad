import type { EvalSummary } from "../runner/events.js";

/** The thresholds of --min-pass-rate and --min-score. */
export interface RunGates {
  minPassRate?: number;
  minScore?: number;
}

/**
 * Every eval whose pass rate or mean score is under its gate, as one sentence each. Skipped
 * attempts are not in the pass rate; an eval with no scored attempt fails --min-score, because
 * missing evidence must not pass a gate.
 */
export function unmetGates(summaries: readonly EvalSummary[], gates: RunGates): string[] {
  const reasons: string[] = [];
  for (const s of summaries) {
    if (s.cases === 0) continue;
    const judged = s.cases - s.skipped;
    if (gates.minPassRate !== undefined && judged > 0) {
      const rate = s.passed / judged;
      if (rate < gates.minPassRate) {
        reasons.push(
          `eval "${s.evalId}": pass rate ${(100 * rate).toFixed(1)}% (${s.passed}/${judged}) is below --min-pass-rate ${gates.minPassRate}`,
        );
      }
    }
    if (gates.minScore !== undefined) {
      if (s.meanScore === null) {
        reasons.push(
          `eval "${s.evalId}": no attempt has a score, so --min-score ${gates.minScore} cannot be met`,
        );
      } else if (s.meanScore < gates.minScore) {
        const bound = s.partialCases > 0 ? " (a lower bound: some scores are partial)" : "";
        reasons.push(
          `eval "${s.evalId}": mean score ${s.meanScore.toFixed(3)} (n=${s.scoredCases})${bound} is below --min-score ${gates.minScore}`,
        );
      }
    }
  }
  return reasons;
}
