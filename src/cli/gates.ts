import type { EvalSummary } from "../runner/events.js";

/** The thresholds of --min-pass-rate and --min-score. */
export interface RunGates {
  minPassRate?: number;
  minScore?: number;
}

/** A gate of the run that was not met. */
export interface UnmetGate {
  /**
   * What it checks, the same from run to run (no figures): the flag and what it is about, as
   * `--min-pass-rate: eval "qa"`. CI's test history follows a gate by it (a JUnit testcase name).
   */
  name: string;
  /** Why it was not met, with the figures. */
  message: string;
}

/**
 * Every eval whose pass rate or mean score is under its gate, as one sentence each. Skipped
 * attempts are not in the pass rate; an eval with no scored attempt fails --min-score, because
 * missing evidence must not pass a gate.
 */
export function unmetGates(summaries: readonly EvalSummary[], gates: RunGates): UnmetGate[] {
  const unmet: UnmetGate[] = [];
  for (const s of summaries) {
    if (s.cases === 0) continue;
    const judged = s.cases - s.skipped;
    const gate = (flag: string, why: string) =>
      unmet.push({ name: `${flag}: eval "${s.evalId}"`, message: `eval "${s.evalId}": ${why}` });
    if (gates.minPassRate !== undefined && judged > 0) {
      const rate = s.passed / judged;
      if (rate < gates.minPassRate) {
        gate(
          "--min-pass-rate",
          `pass rate ${(100 * rate).toFixed(1)}% (${s.passed}/${judged}) is below --min-pass-rate ${gates.minPassRate}`,
        );
      }
    }
    if (gates.minScore !== undefined) {
      if (s.meanScore === null) {
        gate(
          "--min-score",
          `no attempt has a score, so --min-score ${gates.minScore} cannot be met`,
        );
      } else if (s.meanScore < gates.minScore) {
        const bound = s.partialCases > 0 ? " (a lower bound: some scores are partial)" : "";
        gate(
          "--min-score",
          `mean score ${s.meanScore.toFixed(3)} (n=${s.scoredCases})${bound} is below --min-score ${gates.minScore}`,
        );
      }
    }
  }
  return unmet;
}
