import { plural } from "../plural.js";
import type { EvalSummary, UnreadCases } from "../runner/events.js";
import { shownApart } from "../shown-apart.js";
import { judgedAttempts } from "../stats/clustered.js";

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

/** Every eval whose pass rate or mean score is under its gate (see {@link evalGates}). */
export function unmetGates(
  summaries: readonly EvalSummary[],
  gates: RunGates,
  stopped = false,
): UnmetGate[] {
  return evalGates(summaries, gates, stopped).unmet;
}

/**
 * The checks of --min-pass-rate and --min-score, one per eval and flag, by name (`checked`, met
 * or not), and those not met, as one sentence each. Skipped attempts are not in the pass rate,
 * nor are those a stop cut off (not judged); an eval with no scored attempt fails --min-score,
 * and one whose cases could not all be read fails both, because missing evidence must not pass a
 * gate. In a `stopped` run the figures are of the attempts judged before the stop, as few as they
 * may be, not of the eval's cases: no gate on them is met, each is not checked, saying so with
 * its figure.
 */
export function evalGates(
  summaries: readonly EvalSummary[],
  gates: RunGates,
  stopped = false,
): { checked: string[]; unmet: UnmetGate[] } {
  const checked: string[] = [];
  const unmet: UnmetGate[] = [];
  for (const s of summaries) {
    if (s.cases === 0) continue;
    const judged = judgedAttempts(s);
    const name = (flag: string) => `${flag}: eval "${s.evalId}"`;
    const gate = (flag: string, why: string) =>
      unmet.push({ name: name(flag), message: `eval "${s.evalId}": ${why}` });
    if (s.unread) {
      // The figures of the cases read say nothing of those never read: no threshold is met.
      for (const [flag, value] of [
        ["--min-pass-rate", gates.minPassRate],
        ["--min-score", gates.minScore],
      ] as const) {
        if (value === undefined) continue;
        checked.push(name(flag));
        gate(
          flag,
          `${unreadText(s.unread)} and ${flag} ${value} cannot be met; fix the dataset and run again`,
        );
      }
      continue;
    }
    const unchecked = (flag: string, threshold: number, figure: string) =>
      gate(
        flag,
        `${flag} ${threshold} not checked: the run was stopped, and its ${figure} is of the attempts judged before the stop, not of its cases`,
      );
    const cut = s.interrupted
      ? `; ${plural(s.interrupted, "attempt")} cut off by the stop left out`
      : "";
    if (gates.minPassRate !== undefined && judged > 0) {
      checked.push(name("--min-pass-rate"));
      const rate = s.passed / judged;
      if (stopped) {
        const figure = `pass rate ${(100 * rate).toFixed(1)}% (${s.passed}/${judged}${cut})`;
        unchecked("--min-pass-rate", gates.minPassRate, figure);
      } else if (below(rate, gates.minPassRate)) {
        gate(
          "--min-pass-rate",
          `pass rate ${shownBelow(100 * rate, 100 * gates.minPassRate, 1)}% (${s.passed}/${judged}) is below --min-pass-rate ${gates.minPassRate}`,
        );
      }
    }
    if (gates.minScore !== undefined) {
      checked.push(name("--min-score"));
      if (stopped && s.meanScore !== null) {
        const figure = `mean score ${s.meanScore.toFixed(3)} (n=${s.scoredCases})`;
        unchecked("--min-score", gates.minScore, figure);
      } else if (s.meanScore === null) {
        gate(
          "--min-score",
          `no attempt has a score, so --min-score ${gates.minScore} cannot be met`,
        );
      } else if (below(s.meanScore, gates.minScore)) {
        const bound = s.partialCases > 0 ? " (a lower bound: some scores are partial)" : "";
        gate(
          "--min-score",
          `mean score ${shownBelow(s.meanScore, gates.minScore, 3)} (n=${s.scoredCases})${bound} is below --min-score ${gates.minScore}`,
        );
      }
    }
  }
  return { checked, unmet };
}

/**
 * An eval's cases that could not all be read, said for a gate: where reading stopped and why.
 * @example
 * unreadText({ afterCases: 20, message: "reading the cases of eval \"qa\" failed: SyntaxError: …" });
 * // 'its dataset was not read whole (reading stopped after 20 cases: reading …), so the cases after them never ran'
 */
export function unreadText(unread: UnreadCases): string {
  const { afterCases: n } = unread;
  const ran =
    n === 0 ? "no case of it ran" : `the cases after ${n === 1 ? "it" : "them"} never ran`;
  return `its dataset was not read whole (reading stopped after ${plural(n, "case")}: ${unread.message}), so ${ran}`;
}

/**
 * How far under a threshold a mean or a rate may fall and still meet it: what adding and dividing
 * in floating point loses (three scores of 0.7 average to 0.6999999999999998), far below any
 * difference a threshold is meant to tell.
 */
const ROUNDING = 1e-9;

/** Whether `value` is under `threshold` by more than rounding. */
export const below = (value: number, threshold: number): boolean => value < threshold - ROUNDING;

/**
 * `value` with `digits` decimals, or more (up to 9) when those would read as `threshold` itself,
 * so "0.69996 is below 0.7" is not printed as "0.700 is below 0.7".
 */
export const shownBelow = (value: number, threshold: number, digits: number): string =>
  shownApart(value, threshold, (v, n) => v.toFixed(n), digits, 9);
