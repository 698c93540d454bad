import type { AttemptRecord, Judgment } from "../eval/record.js";
import { completeScore } from "../stats/trials.js";
import type { JudgmentChange, JudgmentSide } from "./types.js";

/** Most changed judgments kept per case. */
const MAX_JUDGMENTS = 10;

/** A trial's judgments, kept only for the cases whose change is shown. */
export type Representative = {
  trial: number;
  judgments: Judgment[];
  verdict: AttemptRecord["verdict"];
  error?: string;
};

/** The trial that shows a case's side of a change: its first passing or first non-passing one. */
export function representative(trials: readonly AttemptRecord[], passing: boolean) {
  const counted = trials.filter((trial) => trial.verdict !== "skipped");
  const chosen =
    counted.find((trial) => (trial.verdict === "passed") === passing) ?? counted[0] ?? trials[0];
  return chosen && kept(chosen);
}

/**
 * The trial that shows a case's side of a change of score: its lowest-scoring (or highest) trial
 * with a complete score, or its first counted trial without one.
 */
export function scoreRepresentative(trials: readonly AttemptRecord[], lowest: boolean) {
  let chosen: AttemptRecord | undefined;
  let best = 0;
  for (const trial of trials) {
    const value = completeScore(trial);
    if (value === null) continue;
    if (chosen === undefined || (lowest ? value < best : value > best)) {
      chosen = trial;
      best = value;
    }
  }
  return chosen ? kept(chosen) : representative(trials, !lowest);
}

/** What a change keeps of one trial. */
export function kept(trial: AttemptRecord): Representative {
  const out: Representative = {
    trial: trial.trial ?? 0,
    judgments: trial.judgments,
    verdict: trial.verdict,
  };
  if (trial.error) out.error = `${trial.error.where}: ${trial.error.message}`;
  return out;
}

/**
 * With trials, the two sides of a change from one trial number: one that passed in the base and
 * not in the head for a regression (the reverse for an improvement), so the judgments compared
 * are those of a trial that changed, not a passing trial of one run beside another trial of the
 * other. Undefined when no trial number moved that way (the cases ran different trials).
 */
export function sameTrialPair(
  base: readonly Representative[],
  head: readonly Representative[],
  regression: boolean,
): { base: Representative; head: Representative } | undefined {
  const passed = (side: Representative) => side.verdict === "passed";
  for (const b of base) {
    if (b.verdict === "skipped" || passed(b) !== regression) continue;
    const h = head.find((side) => side.trial === b.trial);
    if (h && h.verdict !== "skipped" && passed(h) === !regression) return { base: b, head: h };
  }
  return undefined;
}

/** Judgments whose state differs, matched by source, label and occurrence; gates first. */
export function diffJudgments(
  base: readonly Judgment[],
  head: readonly Judgment[],
): JudgmentChange[] {
  const keyed = (judgments: readonly Judgment[]) => {
    const seen = new Map<string, number>();
    const out = new Map<string, Judgment>();
    for (const judgment of judgments) {
      const key = `${judgment.source}\u0000${judgment.label}`;
      const occurrence = seen.get(key) ?? 0;
      seen.set(key, occurrence + 1);
      out.set(`${key}\u0000${occurrence}`, judgment);
    }
    return out;
  };
  const before = keyed(base);
  const after = keyed(head);
  const changes: JudgmentChange[] = [];
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const b = before.get(key);
    const h = after.get(key);
    if (b && h && b.state === h.state && b.earned === h.earned) continue;
    const any = (h ?? b)!;
    changes.push({
      label: any.label,
      source: any.source,
      gate: any.gate,
      base: b ? judgmentSide(b) : null,
      head: h ? judgmentSide(h) : null,
    });
  }
  return changes.sort((x, y) => Number(y.gate) - Number(x.gate)).slice(0, MAX_JUDGMENTS);
}

/** A judgment's side of a change: its state and reason, and for points, what it earned of them. */
function judgmentSide(judgment: Judgment): JudgmentSide {
  const side: JudgmentSide = { state: judgment.state, reason: judgment.reason };
  if (judgment.points > 0) {
    side.earned = judgment.earned;
    side.points = judgment.points;
  }
  return side;
}
