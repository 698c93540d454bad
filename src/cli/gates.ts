import { plural } from "../plural.js";
import type { EvalSummary, UnreadCases } from "../runner/events.js";
import { shownApart } from "../shown-apart.js";
import { judgedAttempts } from "../stats/clustered.js";
import { below } from "../threshold.js";

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
 * nor are those a stop cut off (not judged); an eval whose scores were all unavailable fails
 * --min-score, one without points is not held to it, and one whose cases could not all be read
 * fails both, because missing evidence must not pass a
 * gate. In a `stopped` run the figures are of the attempts judged before the stop, as few as they
 * may be, not of the eval's cases: no gate on them is met, each asked for is listed as not
 * checked, saying so with its figure, or that there is none (see {@link stoppedGates}).
 */
export function evalGates(
  summaries: readonly EvalSummary[],
  gates: RunGates,
  stopped = false,
): { checked: string[]; unmet: UnmetGate[] } {
  const checked: string[] = [];
  const unmet: UnmetGate[] = [];
  const asked = [
    ["--min-pass-rate", gates.minPassRate],
    ["--min-score", gates.minScore],
  ] as const;
  for (const s of summaries) {
    if (s.cases === 0) continue;
    const found = s.unread
      ? unreadGates(s.unread, asked)
      : stopped
        ? stoppedGates(s, asked)
        : figureGates(s, gates);
    checked.push(...found.checked.map((flag) => gateName(flag, s.evalId)));
    for (const { flag, why } of found.unmet) {
      unmet.push({ name: gateName(flag, s.evalId), message: `eval "${s.evalId}": ${why}` });
    }
  }
  return { checked, unmet };
}

/** The gates asked for, each flag with its threshold (undefined when not asked for). */
type Asked = readonly (readonly [flag: string, value: number | undefined])[];

/** One eval's checks by flag, and why each not met was not (without the eval's name). */
interface EvalChecks {
  checked: string[];
  unmet: { flag: string; why: string }[];
}

/** A gate's name: the flag and the eval it is about, the same from run to run. */
const gateName = (flag: string, evalId: string) => `${flag}: eval "${evalId}"`;

/** An eval whose cases could not all be read: the figures of those read say nothing of the rest. */
function unreadGates(unread: UnreadCases, asked: Asked): EvalChecks {
  const checks: EvalChecks = { checked: [], unmet: [] };
  for (const [flag, value] of asked) {
    if (value === undefined) continue;
    checks.checked.push(flag);
    const why = `${unreadText(unread)} and ${flag} ${value} cannot be met; fix the dataset and run again`;
    checks.unmet.push({ flag, why });
  }
  return checks;
}

/**
 * An eval of a stopped run: each gate asked for is not checked, whatever its figures (of the
 * attempts judged before the stop, not of the eval's cases), saying so with the figure, or that
 * no attempt was judged before the stop (every one cut off, say) or none judged has a score.
 */
function stoppedGates(s: EvalSummary, asked: Asked): EvalChecks {
  const checks: EvalChecks = { checked: [], unmet: [] };
  for (const [flag, value] of asked) {
    if (value === undefined) continue;
    checks.checked.push(flag);
    checks.unmet.push({
      flag,
      why: `${flag} ${value} not checked: the run was stopped, and ${stoppedFigure(s, flag)}; run it again to its end to check it`,
    });
  }
  return checks;
}

/** What a stopped run's eval has for a gate: its figure and what it is of, or why it has none. */
function stoppedFigure(s: EvalSummary, flag: string): string {
  const judged = judgedAttempts(s);
  const cut = s.interrupted ? plural(s.interrupted, "attempt") + " cut off by the stop" : "";
  const of = "is of the attempts judged before the stop, not of its cases";
  if (flag === "--min-pass-rate") {
    if (judged === 0) {
      return `no attempt of it was judged before the stop${cut ? ` (${cut})` : ""}, so it has no pass rate`;
    }
    const rate = (100 * s.passed) / judged;
    return `its pass rate ${rate.toFixed(1)}% (${s.passed}/${judged}${cut ? `; ${cut} left out` : ""}) ${of}`;
  }
  if (s.meanScore !== null) {
    return `its mean score ${s.meanScore.toFixed(3)} (n=${s.scoredCases})${lowerBound(s)} ${of}`;
  }
  if (judged === 0) {
    return `no attempt of it was judged before the stop${cut ? ` (${cut})` : ""}, so it has no mean score`;
  }
  return "no attempt of it judged before the stop has a score, so it has no mean score";
}

/** What a mean over partial scores is, said beside it as the reports mark it (≥). */
const lowerBound = (s: EvalSummary): string =>
  s.partialCases > 0 ? " (a lower bound: some scores are partial)" : "";

/** An eval of a run that ended: its pass rate and mean score against the thresholds. */
function figureGates(s: EvalSummary, gates: RunGates): EvalChecks {
  const checks: EvalChecks = { checked: [], unmet: [] };
  const judged = judgedAttempts(s);
  if (gates.minPassRate !== undefined && judged > 0) {
    checks.checked.push("--min-pass-rate");
    const rate = s.passed / judged;
    if (below(rate, gates.minPassRate)) {
      checks.unmet.push({
        flag: "--min-pass-rate",
        why: `pass rate ${shownBelow(100 * rate, 100 * gates.minPassRate, 1)}% (${s.passed}/${judged}) is below --min-pass-rate ${gates.minPassRate}`,
      });
    }
  }
  // An eval without points (its checks are gates, or its attempts were skipped) has no mean score
  // to hold to it; one whose scores were unavailable has, and fails it.
  if (gates.minScore !== undefined && (s.meanScore !== null || (s.unscoredCases ?? 0) > 0)) {
    checks.checked.push("--min-score");
    if (s.meanScore === null) {
      checks.unmet.push({
        flag: "--min-score",
        why: `no attempt has a score, so --min-score ${gates.minScore} cannot be met`,
      });
    } else if (below(s.meanScore, gates.minScore)) {
      checks.unmet.push({
        flag: "--min-score",
        why: `mean score ${shownBelow(s.meanScore, gates.minScore, 3)} (n=${s.scoredCases})${lowerBound(s)} is below --min-score ${gates.minScore}`,
      });
    }
  }
  return checks;
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
 * `value` with `digits` decimals, or more (up to 9) when those would read as `threshold` itself,
 * so "0.69996 is below 0.7" is not printed as "0.700 is below 0.7".
 */
export const shownBelow = (value: number, threshold: number, digits: number): string =>
  shownApart(value, threshold, (v, n) => v.toFixed(n), digits, 9);
